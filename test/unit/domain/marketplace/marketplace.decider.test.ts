import t from 'tap';
import { marketplaceNameDecider } from '../../../../src/domain/marketplace/marketplace-name.decider.ts';
import { marketplaceDecider } from '../../../../src/domain/marketplace/marketplace.decider.ts';
import type { ApproveInputs } from '../../../../src/domain/snapshot/approve-gate.ts';
import {
  acme as base,
  approved,
  captured,
  meta,
  registered as registeredEvent,
  revoked as revokedEvent,
  sha,
  syncModeChanged,
} from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const registered = registeredEvent();
const register = (name: string) => ({
  type: 'register-marketplace' as const,
  data: { marketplaceId: 7, name, origin: 'upstream' as const, url: 'https://example.test/acme.git', pushPolicy: null },
  meta: meta({ principal: 'root' }),
});

t.test('registration records the id, the acting principal and the decided instant', async (t) => {
  const decision = spec(marketplaceDecider).given([]).when(register('acme'));
  t.strictSame(decision, {
    outcome: 'accepted',
    events: [
      {
        type: 'marketplace-registered',
        data: {
          marketplaceId: 7,
          name: 'acme',
          origin: 'upstream',
          url: 'https://example.test/acme.git',
          pushPolicy: null,
          registeredAt: '2026-03-01T10:00:00.000Z',
          registeredBy: 'root',
        },
      },
    ],
  });
});

t.test('an invalid name is refused with the /git/<name> wording (spec, Errors: 422)', async (t) => {
  for (const name of ['Acme', '-acme', 'a'.repeat(64), 'ac/me', '']) {
    const decision = spec(marketplaceDecider).given([]).when(register(name));
    t.match(
      decision,
      { outcome: 'refused', rejection: { code: 'invalid-name', detail: /\/git\/<name> path clients clone/ } },
      name,
    );
    t.strictSame(decision.events, []);
  }
  t.match(
    spec(marketplaceDecider)
      .given([])
      .when(register('a'.repeat(63))),
    { outcome: 'accepted' },
    '63 characters is the limit',
  );
});

// Snapshot 3, of commit a: the one most tests decide on.
const held = captured({ snapshotId: 3, sha: sha('a') });
const approval = approved({ snapshotId: 3, sha: sha('a') });
const rejectedAtCapture = captured({ snapshotId: 3, sha: sha('a'), state: 'rejected' });
const heldSince = (capturedAt: string) => captured({ snapshotId: 3, sha: sha('a'), capturedAt });
const inputs: ApproveInputs = {
  minimumReleaseAgeMs: 0,
  withdrawnShas: [],
  vetting: { outcome: 'CLEAR', uncovered: [], unanswered: [] },
  overrideReason: null,
  policyDenials: [],
};
const approve = (snapshotId: number, at = '2026-03-01T10:00:00.000Z', extra: Partial<ApproveInputs> = {}) => ({
  type: 'approve-snapshot' as const,
  data: { snapshotId, inputs: { ...inputs, ...extra } },
  meta: meta({ at, principal: 'bob' }),
});
const ingest = (c: string, snapshotId = 50, violation: string | null = null) => ({
  type: 'record-ingest' as const,
  data: {
    snapshotId,
    sha: sha(c),
    upstreamSha: sha(c),
    violation,
    trigger: 'on-demand' as const,
    committedAt: null,
    description: null,
  },
  meta: meta(),
});

t.test(
  'ingestion captures a new commit as held, and a captured commit creates no second snapshot (spec, Snapshot state)',
  async (t) => {
    const first = spec(marketplaceDecider).given([registered]).when(ingest('a'));
    t.match(first, {
      outcome: 'accepted',
      events: [
        {
          type: 'snapshot-captured',
          data: {
            snapshotId: 50,
            sha: sha('a'),
            state: 'held',
            violation: null,
            ingestedBy: 'alice',
            capturedAt: '2026-03-01T10:00:00.000Z',
          },
        },
        { type: 'ingest-succeeded', data: { snapshotId: 50, created: true } },
      ],
    });
    const again = spec(marketplaceDecider).given([registered, held]).when(ingest('a', 51));
    t.strictSame(
      again.events.map((e) => e.type),
      ['ingest-succeeded'],
    );
    t.match(again.events[0], { data: { snapshotId: 3, created: false } });
    const broken = spec(marketplaceDecider)
      .given([registered])
      .when(ingest('b', 52, 'plugin source escapes the repository'));
    t.match(
      broken.events[0],
      { type: 'snapshot-captured', data: { state: 'rejected', violation: 'plugin source escapes the repository' } },
      'a manifest that breaks policy gives a rejected snapshot (and the ingest succeeded)',
    );
    t.equal(broken.events[1]?.type, 'ingest-succeeded');
  },
);

t.test('a failed attempt is recorded with reason, root cause and next step', async (t) => {
  const decision = spec(marketplaceDecider)
    .given([registered])
    .when({
      type: 'record-ingest-failure',
      data: {
        reason: 'upstream unreadable',
        rootCause: 'connection refused',
        nextStep: 'check the URL',
        trigger: 'scheduled',
      },
      meta: meta(),
    });
  t.match(decision, {
    outcome: 'accepted',
    events: [
      {
        type: 'ingest-failed',
        data: {
          reason: 'upstream unreadable',
          rootCause: 'connection refused',
          nextStep: 'check the URL',
          trigger: 'scheduled',
        },
      },
    ],
  });
});

t.test('approve: held or revoked become approved; the gate refuses in order', async (t) => {
  t.match(spec(marketplaceDecider).given([registered, held]).when(approve(3)), {
    outcome: 'accepted',
    events: [
      {
        type: 'snapshot-approved',
        data: { snapshotId: 3, sha: sha('a'), approvedBy: 'bob', approvedAt: '2026-03-01T10:00:00.000Z' },
      },
    ],
  });
  const revoked = revokedEvent({ snapshotId: 3, sha: sha('a') });
  t.match(
    spec(marketplaceDecider).given([registered, held, approval, revoked]).when(approve(3)),
    { outcome: 'accepted' },
    'revoked → approved',
  );
  t.match(
    spec(marketplaceDecider).given([registered, held, approval]).when(approve(3)),
    { outcome: 'refused', rejection: { code: 'snapshot-already-decided' } },
    'approve on an approved snapshot answers 409',
  );
  t.match(
    spec(marketplaceDecider).given([registered, rejectedAtCapture]).when(approve(3)),
    { outcome: 'refused', rejection: { code: 'snapshot-already-decided', detail: /rejected/ } },
    'rejected → approve is refused',
  );
  t.match(spec(marketplaceDecider).given([registered]).when(approve(9)), {
    outcome: 'refused',
    rejection: { code: 'snapshot-not-found' },
  });
  t.match(
    spec(marketplaceDecider)
      .given([registered, held])
      .when(approve(3, undefined, { withdrawnShas: [sha('a')] })),
    { outcome: 'refused', rejection: { code: 'snapshot-withdrawn' } },
    'a commit withdrawn administratively is refused',
  );
  const young = spec(marketplaceDecider)
    .given([registered, heldSince('2026-03-01T09:30:00.000Z')])
    .when(approve(3, '2026-03-01T10:00:00.000Z', { minimumReleaseAgeMs: 3_600_000 }));
  t.match(young, {
    outcome: 'refused',
    rejection: { code: 'release-age-not-elapsed', extensions: { approvableAt: '2026-03-01T10:30:00.000Z' } },
  });
  t.strictSame(young.events, []);
  t.match(
    spec(marketplaceDecider)
      .given([registered, heldSince('2026-03-01T09:00:00.000Z')])
      .when(approve(3, '2026-03-01T10:00:00.000Z', { minimumReleaseAgeMs: 3_600_000 })),
    { outcome: 'accepted' },
    'exactly elapsed is enough',
  );
});

t.test(
  'approve gate: vetting BLOCKED refuses unless an admin overrides; then policy rules; then the release age',
  async (t) => {
    const given = spec(marketplaceDecider).given([registered, heldSince('2026-03-01T09:30:00.000Z')]);
    const uncovered = [
      { connector: 'secrets', ruleId: 'secrets-aws', location: 'a.txt:3', severity: 'HIGH', message: 'AWS key' },
    ];
    const blocked = { outcome: 'BLOCKED' as const, uncovered, unanswered: [] };
    const denial = { rule: 'no-hooks', ruleId: 4, outcome: 'matched' as const, error: null };
    // BLOCKED refuses with 409 unless an admin overrides; vetting comes before policy and release age.
    const refusedByVetting = given.when(
      approve(3, undefined, { vetting: blocked, policyDenials: [denial], minimumReleaseAgeMs: 3_600_000 }),
    );
    t.match(refusedByVetting, {
      outcome: 'refused',
      rejection: { code: 'vetting-blocked', extensions: { outcome: 'BLOCKED', uncovered } },
    });
    t.strictSame(refusedByVetting.events, [], 'no policy-denied entry when vetting already refused');
    t.match(
      given.when(approve(3, undefined, { vetting: { outcome: 'BLOCKED', uncovered: [], unanswered: ['http'] } })),
      { outcome: 'refused', rejection: { code: 'vetting-blocked', detail: /no answer from http/ } },
    );
    // The admin override lets a BLOCKED snapshot through, and the approval records the reason.
    t.match(given.when(approve(3, undefined, { vetting: blocked, overrideReason: 'false positive, reviewed' })), {
      outcome: 'accepted',
      events: [{ type: 'snapshot-approved', data: { overrideReason: 'false positive, reviewed' } }],
    });
    t.match(
      given.when(approve(3, undefined, { overrideReason: 'not needed' })),
      { outcome: 'accepted', events: [{ type: 'snapshot-approved', data: { overrideReason: null } }] },
      'an override that was not needed is not recorded',
    );
    // Any match or evaluation error refuses with 409 naming all deciding rules, with one policy-denied ledger entry per
    // deciding rule
    const errored = { rule: 'broken', ruleId: 5, outcome: 'error' as const, error: 'no such key: x' };
    const denied = given.when(
      approve(3, undefined, {
        vetting: blocked,
        overrideReason: 'ok',
        policyDenials: [denial, errored],
        minimumReleaseAgeMs: 3_600_000,
      }),
    );
    t.match(denied, {
      outcome: 'refused',
      rejection: {
        code: 'policy-denied',
        extensions: {
          denials: [
            { rule: 'no-hooks', outcome: 'matched' },
            { rule: 'broken', outcome: 'error' },
          ],
        },
      },
    });
    t.match(denied.events, [
      {
        type: 'policy-denied',
        data: { ...base, snapshotId: 3, sha: sha('a'), rule: 'no-hooks', ruleId: 4, outcome: 'matched', error: null },
      },
      { type: 'policy-denied', data: { rule: 'broken', ruleId: 5, outcome: 'error', error: 'no such key: x' } },
    ]);
    t.equal(denied.events.length, 2);
    t.match(
      given.when(approve(3, undefined, { minimumReleaseAgeMs: 3_600_000 })),
      { outcome: 'refused', rejection: { code: 'release-age-not-elapsed' } },
      'the release age is the last check',
    );
  },
);

t.test(
  'sync mode: a change records sync-mode-changed with the sealed secret only in webhook mode; the same mode changes nothing',
  async (t) => {
    const change = (mode: 'on-demand' | 'scheduled' | 'webhook') => ({
      type: 'change-sync-mode' as const,
      data: { mode, sealedWebhookSecret: 'v1.sealed' },
      meta: meta(),
    });
    t.match(spec(marketplaceDecider).given([registered]).when(change('webhook')), {
      outcome: 'accepted',
      events: [
        {
          type: 'sync-mode-changed',
          data: {
            marketplaceId: 7,
            name: 'acme',
            mode: 'webhook',
            previousMode: 'on-demand',
            sealedWebhookSecret: 'v1.sealed',
          },
        },
      ],
    });
    t.strictSame(
      spec(marketplaceDecider).given([registered]).when(change('on-demand')).events,
      [],
      'on-demand already: nothing to record',
    );
    const inWebhook = syncModeChanged({ sealedWebhookSecret: 'v1.old' });
    t.strictSame(
      spec(marketplaceDecider).given([registered, inWebhook]).when(change('webhook')).events,
      [],
      'no new secret for the mode it has',
    );
    t.match(
      spec(marketplaceDecider).given([registered, inWebhook]).when(change('scheduled')),
      {
        events: [
          {
            type: 'sync-mode-changed',
            data: { mode: 'scheduled', previousMode: 'webhook', sealedWebhookSecret: null },
          },
        ],
      },
      'leaving webhook mode discards the secret',
    );
  },
);

t.test('reject: held or revoked become rejected; a decided snapshot answers 409; never age-gated', async (t) => {
  const reject = (snapshotId: number) => ({ type: 'reject-snapshot' as const, data: { snapshotId }, meta: meta() });
  t.match(spec(marketplaceDecider).given([registered, held]).when(reject(3)), {
    outcome: 'accepted',
    events: [{ type: 'snapshot-rejected', data: { snapshotId: 3 } }],
  });
  t.match(spec(marketplaceDecider).given([registered, held, approval]).when(reject(3)), {
    outcome: 'refused',
    rejection: { code: 'snapshot-already-decided' },
  });
  t.match(spec(marketplaceDecider).given([registered, rejectedAtCapture]).when(reject(3)), {
    outcome: 'refused',
    rejection: { code: 'snapshot-already-decided' },
  });
});

t.test('reject: the reviewer’s reason is recorded trimmed; a blank one is none', async (t) => {
  const reject = (reason: string | null) => ({
    type: 'reject-snapshot' as const,
    data: { snapshotId: 3, reason },
    meta: meta(),
  });
  const rejected = (reason: string | null) => {
    const decision = spec(marketplaceDecider).given([registered, held]).when(reject(reason));
    return decision.events[0]?.type === 'snapshot-rejected' ? decision.events[0].data : null;
  };
  t.equal(rejected('  curl piped to a shell in the setup hook \n')?.reason, 'curl piped to a shell in the setup hook');
  t.notOk(rejected('   ') && 'reason' in rejected('   ')!, 'a blank reason is not recorded');
  t.notOk(rejected(null) && 'reason' in rejected(null)!, 'nor a missing one');
});

t.test(
  'removal withdraws every approved snapshot with the reason, then removes; nothing acts on a removed marketplace',
  async (t) => {
    const history = [
      registered,
      held,
      approval,
      captured({ snapshotId: 4, sha: sha('b') }),
      approved({ snapshotId: 4, sha: sha('b') }),
      captured({ snapshotId: 5, sha: sha('c') }),
    ];
    const decision = spec(marketplaceDecider)
      .given(history)
      .when({ type: 'remove-marketplace', data: { reason: 'retired', pushScopeTokenIds: [] }, meta: meta() });
    t.match(decision, {
      outcome: 'accepted',
      events: [
        {
          type: 'snapshot-revoked',
          data: { snapshotId: 3, reason: 'marketplace removed: retired', administrative: true },
        },
        {
          type: 'snapshot-revoked',
          data: { snapshotId: 4, reason: 'marketplace removed: retired', administrative: true },
        },
        {
          type: 'marketplace-removed',
          data: { marketplaceId: 7, name: 'acme', reason: 'retired', removedBy: 'alice', withdrawnSnapshotIds: [3, 4] },
        },
      ],
    });
    t.equal(decision.events.length, 3, 'the held snapshot is untouched');
    const removed = [...history, ...decision.events];
    for (const command of [
      approve(5),
      ingest('d'),
      { type: 'remove-marketplace' as const, data: { reason: 'again', pushScopeTokenIds: [] }, meta: meta() },
    ]) {
      t.match(
        spec(marketplaceDecider).given(removed).when(command),
        { outcome: 'refused', rejection: { code: 'marketplace-not-found' } },
        command.type,
      );
    }
    t.match(
      spec(marketplaceDecider)
        .given([])
        .when({ type: 'remove-marketplace', data: { reason: 'x', pushScopeTokenIds: [] }, meta: meta() }),
      { outcome: 'refused', rejection: { code: 'marketplace-not-found' } },
    );
  },
);

t.test(
  'a live name is held by one marketplace; a released name is free again (spec: a removed name is free)',
  async (t) => {
    const reserve = (marketplaceId: number) => ({
      type: 'reserve-marketplace-name' as const,
      data: { name: 'acme', marketplaceId },
      meta: meta(),
    });
    const release = (marketplaceId: number) => ({
      type: 'release-marketplace-name' as const,
      data: { name: 'acme', marketplaceId },
      meta: meta(),
    });
    const held = { type: 'marketplace-name-reserved' as const, data: { name: 'acme', marketplaceId: 1 } };
    const freed = { type: 'marketplace-name-released' as const, data: { name: 'acme', marketplaceId: 1 } };
    t.match(spec(marketplaceNameDecider).given([]).when(reserve(1)), { outcome: 'accepted', events: [held] });
    t.match(spec(marketplaceNameDecider).given([held]).when(reserve(2)), {
      outcome: 'refused',
      rejection: { code: 'marketplace-name-taken' },
    });
    t.match(spec(marketplaceNameDecider).given([held, freed]).when(reserve(2)), { outcome: 'accepted' });
    t.strictSame(spec(marketplaceNameDecider).given([held]).when(release(2)).events, [], 'only the holder releases');
    t.strictSame(spec(marketplaceNameDecider).given([held]).when(release(1)).events, [freed]);
  },
);

t.test(
  'a name held by a marketplace that was removed, or never registered, is taken over; a live or young one is not',
  async (t) => {
    const at = (iso: string) => meta({ at: iso });
    const reserve = (
      marketplaceId: number,
      when: string,
      staleHolder?: { marketplaceId: number; removed: boolean },
    ) => ({
      type: 'reserve-marketplace-name' as const,
      data: { name: 'acme', marketplaceId, ...(staleHolder ? { staleHolder } : {}) },
      meta: at(when),
    });
    const held = {
      type: 'marketplace-name-reserved' as const,
      data: { name: 'acme', marketplaceId: 1, reservedAt: '2026-03-01T10:00:00.000Z' },
    };
    const refusedTaken = {
      outcome: 'refused',
      rejection: { code: 'marketplace-name-taken', extensions: { holder: 1 } },
    };

    t.match(
      spec(marketplaceNameDecider).given([]).when(reserve(1, '2026-03-01T10:00:00.000Z')),
      {
        outcome: 'accepted',
        events: [held],
      },
      'a reservation records when it was made',
    );
    t.match(
      spec(marketplaceNameDecider).given([held]).when(reserve(2, '2026-03-01T12:00:00.000Z')),
      refusedTaken,
      'without a stale holder named, a held name stays taken',
    );
    t.strictSame(
      spec(marketplaceNameDecider)
        .given([held])
        .when(reserve(2, '2026-03-01T10:00:05.000Z', { marketplaceId: 1, removed: true })).events,
      [
        { type: 'marketplace-name-released', data: { name: 'acme', marketplaceId: 1 } },
        {
          type: 'marketplace-name-reserved',
          data: { name: 'acme', marketplaceId: 2, reservedAt: '2026-03-01T10:00:05.000Z' },
        },
      ],
      'a removed holder (its release cut off) gives the name up at once, recorded as its release',
    );
    t.match(
      spec(marketplaceNameDecider)
        .given([held])
        .when(reserve(2, '2026-03-01T10:00:09.000Z', { marketplaceId: 1, removed: false })),
      refusedTaken,
      'a holder not registered yet may still be registering: taken within the grace',
    );
    t.match(
      spec(marketplaceNameDecider)
        .given([held])
        .when(reserve(2, '2026-03-01T10:00:10.000Z', { marketplaceId: 1, removed: false })),
      { outcome: 'accepted' },
      'after the grace, a holder that never registered gives the name up',
    );
    t.match(
      spec(marketplaceNameDecider)
        .given([held])
        .when(reserve(2, '2026-03-01T12:00:00.000Z', { marketplaceId: 3, removed: true })),
      refusedTaken,
      'only the current holder can be named stale',
    );
    const old = { type: 'marketplace-name-reserved' as const, data: { name: 'acme', marketplaceId: 1 } };
    t.match(
      spec(marketplaceNameDecider)
        .given([old])
        .when(reserve(2, '2026-03-01T10:00:00.000Z', { marketplaceId: 1, removed: false })),
      { outcome: 'accepted' },
      'a reservation recorded without its time is past any grace',
    );
  },
);
