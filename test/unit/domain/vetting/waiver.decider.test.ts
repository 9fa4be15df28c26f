import t from 'tap';
import {
  waiverDecider,
  waiverPathProblem,
  type CreateWaiver,
  type LapseWaivers,
  type RevokeWaiver,
  type WaiverEvent,
} from '../../../../src/domain/vetting/waiver.decider.ts';
import {
  acme,
  after,
  at,
  command,
  sha,
  waiverCreated,
  waiverLapsed,
  waiverRevoked,
} from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const day = 86_400_000;
const create = (data: Partial<CreateWaiver['data']> = {}, when = at) =>
  command<CreateWaiver>(
    'create-waiver',
    {
      waiverId: 21,
      marketplace: { id: 7, name: 'acme' },
      snapshot: { id: 3, sha: sha('c'), state: 'held', withdrawn: false },
      ruleId: 'secrets-aws',
      scope: 'SNAPSHOT',
      path: null,
      justification: 'a documented test key',
      expiresAt: after(day),
      ...data,
    },
    { principal: 'carol', at: when },
  );
const revoke = (waiverId = 21) => command<RevokeWaiver>('revoke-waiver', { waiverId }, { principal: 'dave' });
const lapse = (when: string, limit = 100) =>
  command<LapseWaivers>('lapse-waivers', { limit }, { principal: 'waiver-sweep', at: when });
const given = (events: readonly WaiverEvent[] = []) => spec(waiverDecider).given(events);

t.test(
  'spec, Waiver request: marketplace and SHA "are taken from the snapshot. The approver is the acting session."',
  async (t) => {
    t.strictSame(given().when(create()), {
      outcome: 'accepted',
      events: [
        {
          type: 'waiver-created',
          data: {
            waiverId: 21,
            ...acme,
            snapshotId: 3,
            ruleId: 'secrets-aws',
            scope: 'SNAPSHOT',
            scopeValue: sha('c'),
            justification: 'a documented test key',
            approvedBy: 'carol',
            createdAt: at,
            expiresAt: after(day),
          },
        },
      ],
    });
    t.match(
      given().when(create({ path: '../ignored' })),
      { outcome: 'accepted', events: [{ data: { scope: 'SNAPSHOT', scopeValue: sha('c') } }] },
      'spec: path is "ignored for SNAPSHOT"',
    );
    t.match(
      given().when(
        create({ ruleId: '  secrets-aws ', justification: ' reviewed\n', expiresAt: '2026-03-02T12:00:00+02:00' }),
      ),
      {
        events: [{ data: { ruleId: 'secrets-aws', justification: 'reviewed', expiresAt: '2026-03-02T10:00:00.000Z' } }],
      },
      'the rule id and justification are trimmed; the expiry is stored in UTC',
    );
  },
);

t.test('a PATH waiver stores the repository-relative path as its scope value', async (t) => {
  t.match(given().when(create({ scope: 'PATH', path: 'plugins/a/config.env' })), {
    outcome: 'accepted',
    events: [{ data: { scope: 'PATH', scopeValue: 'plugins/a/config.env' } }],
  });
  t.match(
    given().when(create({ scope: 'PATH', path: './plugins/a' })),
    { events: [{ data: { scopeValue: 'plugins/a' } }] },
    'a leading ./ is dropped',
  );
});

t.test(
  'spec, Waiver request: 400 invalid-waiver for "missing justification or expiry, past expiry, unusable scope"',
  async (t) => {
    const cases: Array<[string, CreateWaiver, RegExp]> = [
      ['blank ruleId', create({ ruleId: ' ' }), /ruleId is required/],
      ['missing justification', create({ justification: '' }), /justification is required/],
      ['blank justification', create({ justification: ' \n ' }), /justification is required/],
      ['missing expiry', create({ expiresAt: null }), /there is no unlimited waiver/],
      ['blank expiry', create({ expiresAt: '  ' }), /there is no unlimited waiver/],
      ['not an instant', create({ expiresAt: 'next week' }), /not an ISO-8601 instant/],
      ['a date without a time', create({ expiresAt: '2026-04-01' }), /not an ISO-8601 instant/],
      ['no time zone', create({ expiresAt: '2026-04-01T10:00:00' }), /not an ISO-8601 instant/],
      ['an impossible date', create({ expiresAt: '2026-02-31T25:00:00Z' }), /not an ISO-8601 instant/],
      ['past expiry', create({ expiresAt: after(-1) }), /must be in the future/],
      ['expiry at the decided instant', create({ expiresAt: at }), /must be in the future/],
      ['PATH without a path', create({ scope: 'PATH', path: null }), /needs a path/],
      ['PATH with a blank path', create({ scope: 'PATH', path: ' ' }), /needs a path/],
      ['an absolute path', create({ scope: 'PATH', path: '/etc/passwd' }), /repository-relative/],
      ['a path with ..', create({ scope: 'PATH', path: 'plugins/../../x' }), /must not contain '\.\.'/],
      ['a backslash', create({ scope: 'PATH', path: 'plugins\\a' }), /plain repository path/],
      ['a control character', create({ scope: 'PATH', path: 'plugins/a\u0000' }), /plain repository path/],
    ];
    for (const [label, request, detail] of cases) {
      t.match(
        given().when(request),
        { outcome: 'refused', rejection: { code: 'invalid-waiver', detail }, events: [] },
        label,
      );
    }
    t.match(
      given().when(create({ expiresAt: after(1) })),
      { outcome: 'accepted' },
      'a millisecond ahead is the future',
    );
    t.match(
      given().when(create({ scope: 'PATH', path: 'plugins/a..b/x' })),
      { outcome: 'accepted' },
      '.. inside a segment is a name, not a parent',
    );
    t.equal(waiverPathProblem('plugins/a'), null);
  },
);

t.test(
  'a waiver is refused on a snapshot no decision can follow: rejected, or withdrawn administratively',
  async (t) => {
    const at3 = (state: CreateWaiver['data']['snapshot']['state'], withdrawn = false) =>
      create({ snapshot: { id: 3, sha: sha('c'), state, withdrawn } });
    t.match(
      given().when(at3('rejected')),
      {
        outcome: 'refused',
        rejection: { code: 'snapshot-already-decided', detail: /snapshot 3 is rejected.*ingest again/ },
        events: [],
      },
      'rejected: 409 snapshot-already-decided, with what to do instead',
    );
    t.match(
      given().when(at3('revoked', true)),
      { outcome: 'refused', rejection: { code: 'snapshot-withdrawn' }, events: [] },
      'withdrawn administratively: 409 snapshot-withdrawn',
    );
    t.match(given().when(at3('revoked')), { outcome: 'accepted' }, 'revoked by a re-vet: it may be approved again');
    t.match(given().when(at3('approved')), { outcome: 'accepted' }, 'approved: its re-vets honour waivers');
    t.match(
      given().when(
        create({ snapshot: { id: 3, sha: sha('c'), state: 'rejected', withdrawn: false }, justification: '' }),
      ),
      { rejection: { code: 'snapshot-already-decided' } },
      'the closed snapshot is said before any field problem',
    );
  },
);

t.test('spec, Waivers: "DELETE /api/v1/waivers/{id}: … row kept; 404 unknown or already revoked"', async (t) => {
  const history = [waiverCreated(), waiverCreated({ waiverId: 22, ruleId: 'hooks-remote-code-execution' })];
  t.strictSame(given(history).when(revoke(22)), {
    outcome: 'accepted',
    events: [
      {
        type: 'waiver-revoked',
        data: { waiverId: 22, ...acme, ruleId: 'hooks-remote-code-execution', revokedAt: at, revokedBy: 'dave' },
      },
    ],
  });
  t.match(
    given(history).when(revoke(23)),
    { outcome: 'refused', rejection: { code: 'waiver-not-found', detail: /no waiver 23/ }, events: [] },
    'unknown',
  );
  t.match(
    given().when(revoke(21)),
    { outcome: 'refused', rejection: { code: 'waiver-not-found' }, events: [] },
    'a marketplace without waivers',
  );
  t.match(
    given([...history, waiverRevoked()]).when(revoke(21)),
    { outcome: 'refused', rejection: { code: 'waiver-not-found' }, events: [] },
    'already revoked',
  );
  t.match(
    given([...history, waiverLapsed()]).when(revoke(21)),
    { outcome: 'accepted' },
    'a lapsed waiver can still be revoked',
  );
});

t.test(
  'decision 72: the sweep records waiver-lapsed once per waiver past its expiresAt, up to its batch size',
  async (t) => {
    const history = [
      waiverCreated({ waiverId: 21, expiresAt: after(-day) }),
      waiverCreated({ waiverId: 22, ruleId: 'secrets-github', expiresAt: at }),
      waiverCreated({ waiverId: 23, expiresAt: after(1) }),
      waiverCreated({ waiverId: 24, expiresAt: after(-day) }),
    ];
    t.strictSame(
      given(history).when(lapse(at)),
      {
        outcome: 'accepted',
        events: [
          { type: 'waiver-lapsed', data: { waiverId: 21, ...acme, ruleId: 'secrets-aws', expiresAt: after(-day) } },
          { type: 'waiver-lapsed', data: { waiverId: 22, ...acme, ruleId: 'secrets-github', expiresAt: at } },
          { type: 'waiver-lapsed', data: { waiverId: 24, ...acme, ruleId: 'secrets-aws', expiresAt: after(-day) } },
        ],
      },
      'expired at the very instant counts; one a millisecond ahead does not',
    );
    t.strictSame(
      given(history)
        .when(lapse(at, 2))
        .events.map((e) => e.data.waiverId),
      [21, 22],
      'the batch size bounds one pass',
    );
    const swept = [...history, waiverLapsed({ waiverId: 21 }), waiverLapsed({ waiverId: 22 })];
    t.strictSame(
      given(swept)
        .when(lapse(at))
        .events.map((e) => e.data.waiverId),
      [24],
      'never twice for one waiver',
    );
    t.strictSame(
      given([...history, waiverRevoked({ waiverId: 24 })])
        .when(lapse(at))
        .events.map((e) => e.data.waiverId),
      [21, 22],
      'a revoked waiver does not lapse',
    );
    t.strictSame(given().when(lapse(at)), { outcome: 'accepted', events: [] }, 'an empty stream');
  },
);
