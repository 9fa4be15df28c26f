import t from 'tap';
import {
  lastUsedIntervalMs,
  machineDefaultCapMs,
  tokenDecider,
  type IssuePolicy,
  type IssueToken,
  type RevokeToken,
  type TokenCommand,
} from '../../../../src/domain/token/token.decider.ts';
import type { TokenEvent, TokenFields, TokenKind } from '../../../../src/domain/token/token.events.ts';
import { after, at, meta, tokenIssued as issued, tokenRevoked, tokenUsed } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const day = 86_400_000;
const hour = 3_600_000;
const digest = 'd'.repeat(64);

const policy = (overrides: Partial<IssuePolicy> = {}): IssuePolicy => ({
  registered: ['acme', 'studio', 'catalog'],
  hosted: ['studio'],
  maxTtlMs: null,
  sessionTtlMs: 8 * hour,
  ...overrides,
});

const issue = (data: Partial<IssueToken['data']> = {}, principal = 'alice'): IssueToken => ({
  type: 'issue-token',
  data: {
    tokenId: 5,
    digest,
    kind: 'personal',
    owner: principal,
    principal,
    name: 'laptop',
    scopes: [],
    pushScopes: [],
    apiScopes: [],
    expiresAt: null,
    policy: policy(),
    ...data,
  },
  meta: meta({ principal, at }),
});
const issueMachine = (data: Partial<IssueToken['data']> = {}) =>
  issue(
    {
      kind: 'machine',
      owner: 'root',
      principal: 'ci-bot',
      name: 'ci',
      apiScopes: ['roles:read'],
      expiresAt: after(30 * day),
      ...data,
    },
    'root',
  );

const fields = (overrides: Partial<TokenFields> = {}): TokenFields => ({
  kind: 'personal',
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  scopes: [],
  pushScopes: [],
  apiScopes: [],
  expiresAt: null,
  ...overrides,
});
const revoked = tokenRevoked();
const used = (usedAt: string) => tokenUsed({ usedAt });

const revoke = (
  asOwner: string | null,
  kinds: readonly TokenKind[],
  cause: 'deleted' | 'rotated' = 'deleted',
  when = at,
): RevokeToken => ({
  type: 'revoke-token',
  data: { asOwner, kinds, cause },
  meta: meta({ principal: asOwner ?? 'root', at: when }),
});
const personalRoute = (owner = 'alice', cause: 'deleted' | 'rotated' = 'deleted', when = at) =>
  revoke(owner, ['personal', 'session'], cause, when);
const machineRoute = (cause: 'deleted' | 'rotated' = 'deleted') => revoke(null, ['machine'], cause);
const recordUse = (when: string): TokenCommand => ({
  type: 'record-token-use',
  data: { tokenId: 5 },
  meta: meta({ principal: 'alice', at: when }),
});

const decide = (history: readonly TokenEvent[], command: TokenCommand) =>
  spec(tokenDecider).given(history).when(command);

t.test(
  'a personal token is issued with the decided instant and the acting principal; the policy is not recorded',
  async (t) => {
    t.strictSame(decide([], issue({ scopes: ['acme'], pushScopes: ['studio'], expiresAt: after(10 * day) })), {
      outcome: 'accepted',
      events: [
        {
          type: 'token-issued',
          data: {
            tokenId: 5,
            digest,
            kind: 'personal',
            owner: 'alice',
            principal: 'alice',
            name: 'laptop',
            scopes: ['acme'],
            pushScopes: ['studio'],
            apiScopes: [],
            expiresAt: after(10 * day),
            rotatedFrom: null,
            issuedAt: at,
            issuedBy: 'alice',
          },
        },
      ],
    });
    t.match(
      decide([issued()], issue()),
      { outcome: 'refused', rejection: { code: 'conflict' }, events: [] },
      'an id is issued once',
    );
  },
);

t.test('rule 1: every fetch scope must name a registered marketplace (the catalog name is valid)', async (t) => {
  t.match(decide([], issue({ scopes: ['acme', 'nope'] })), {
    outcome: 'refused',
    rejection: { code: 'unknown-scope', detail: /'nope'/ },
    events: [],
  });
  t.match(
    decide([], issue({ scopes: ['Acme'] })),
    { outcome: 'refused', rejection: { code: 'unknown-scope' } },
    'names are compared exactly',
  );
  t.match(decide([], issue({ scopes: ['acme', 'studio', 'catalog'] })), { outcome: 'accepted' });
  t.match(decide([], issue({ scopes: [] })), { outcome: 'accepted' }, 'empty grants every marketplace and is valid');
  t.match(
    decide([], issue({ kind: 'session', scopes: ['nope'] })),
    { outcome: 'refused', rejection: { code: 'unknown-scope' } },
    'session tokens too (POST /tokens/session: 422 unknown scope)',
  );
});

t.test('rule 2: push scopes must name a registered hosted marketplace', async (t) => {
  t.match(
    decide([], issue({ pushScopes: ['acme'] })),
    {
      outcome: 'refused',
      rejection: { code: 'unknown-scope', detail: /'acme' is not a registered hosted marketplace/ },
    },
    'an upstream marketplace',
  );
  t.match(
    decide([], issue({ pushScopes: ['ghost'] })),
    { outcome: 'refused', rejection: { code: 'unknown-scope' } },
    'an unregistered name',
  );
  t.match(
    decide([], issue({ pushScopes: ['catalog'] })),
    { outcome: 'refused', rejection: { code: 'unknown-scope' } },
    'the catalog is not hosted',
  );
  t.match(decide([], issue({ pushScopes: ['studio'] })), {
    outcome: 'accepted',
    events: [{ data: { pushScopes: ['studio'] } }],
  });
});

t.test('API scopes are given only to machine credentials (spec, Machine API 4)', async (t) => {
  for (const kind of ['personal', 'session'] as const) {
    t.match(
      decide([], issue({ kind, apiScopes: ['roles:read'] })),
      { outcome: 'refused', rejection: { code: 'unknown-scope' }, events: [] },
      kind,
    );
  }
});

t.test(
  'rule 6: machine provisioning refuses an unknown or misspelled scope, `*`, `all` or an empty apiScopes',
  async (t) => {
    const cases: Array<[string, string[]]> = [
      ['empty', []],
      ['*', ['*']],
      ['all', ['all']],
      ['* beside a real scope', ['roles:read', '*']],
      ['all beside a real scope', ['audit:read', 'all']],
      ['unknown', ['roles:write']],
      ['misspelled', ['role:read']],
      ['wrong case', ['Roles:Read']],
      ['padded', [' roles:read']],
      ['an inherited property name', ['constructor']],
      ['a prefix', ['roles']],
    ];
    for (const [label, apiScopes] of cases) {
      const decision = decide([], issueMachine({ apiScopes }));
      t.match(decision, { outcome: 'refused', rejection: { code: 'unknown-scope' } }, label);
      t.strictSame(decision.events, [], `${label}: nothing recorded`);
    }
    t.match(
      decide([], issueMachine({ apiScopes: ['roles:read', 'audit:read', 'adoption:read'] })),
      {
        outcome: 'accepted',
        events: [
          {
            data: {
              kind: 'machine',
              owner: 'root',
              principal: 'ci-bot',
              apiScopes: ['roles:read', 'audit:read', 'adoption:read'],
              issuedBy: 'root',
            },
          },
        ],
      },
      'scopes compose additively',
    );
  },
);

t.test('rule 6: a machine credential needs expiresAt; it is never defaulted', async (t) => {
  t.match(decide([], issueMachine({ expiresAt: null })), {
    outcome: 'refused',
    rejection: { code: 'missing-expiry' },
    events: [],
  });
  t.match(
    decide([], issueMachine({ expiresAt: null, policy: policy({ maxTtlMs: 400 * day }) })),
    { outcome: 'refused', rejection: { code: 'missing-expiry' } },
    'also under a max-ttl',
  );
});

t.test('an expiresAt that is not in the future is refused', async (t) => {
  for (const expiresAt of [after(-1), at]) {
    t.match(
      decide([], issue({ expiresAt })),
      { outcome: 'refused', rejection: { code: 'invalid-expiry' }, events: [] },
      `personal ${expiresAt}`,
    );
    t.match(
      decide([], issueMachine({ expiresAt })),
      { outcome: 'refused', rejection: { code: 'invalid-expiry' }, events: [] },
      `machine ${expiresAt}`,
    );
  }
  t.match(decide([], issue({ expiresAt: after(1) })), { outcome: 'accepted' }, 'one millisecond ahead is the future');
});

t.test('Limits: machine credentials are capped at 90 days when max-ttl is unset', async (t) => {
  t.equal(machineDefaultCapMs, 90 * day);
  t.match(
    decide([], issueMachine({ expiresAt: after(90 * day) })),
    { outcome: 'accepted', events: [{ data: { expiresAt: after(90 * day) } }] },
    'exactly 90 days',
  );
  t.match(
    decide([], issueMachine({ expiresAt: after(90 * day + 1) })),
    { outcome: 'refused', rejection: { code: 'lifetime-beyond-cap' }, events: [] },
    'one millisecond beyond',
  );
});

t.test('Limits: max-ttl, when set, is the machine cap instead of 90 days', async (t) => {
  const capped = policy({ maxTtlMs: 30 * day });
  t.match(decide([], issueMachine({ expiresAt: after(30 * day + 1), policy: capped })), {
    outcome: 'refused',
    rejection: { code: 'lifetime-beyond-cap' },
  });
  t.match(decide([], issueMachine({ expiresAt: after(30 * day), policy: capped })), { outcome: 'accepted' });
  const longer = policy({ maxTtlMs: 120 * day });
  t.match(
    decide([], issueMachine({ expiresAt: after(100 * day), policy: longer })),
    { outcome: 'accepted' },
    'a max-ttl above 90 days replaces the default',
  );
  t.match(decide([], issueMachine({ expiresAt: after(121 * day), policy: longer })), {
    outcome: 'refused',
    rejection: { code: 'lifetime-beyond-cap' },
  });
});

t.test(
  'rule 4: under max-ttl a personal request beyond the cap, including one with no expiry, is refused and never shortened',
  async (t) => {
    const capped = policy({ maxTtlMs: 30 * day });
    t.match(
      decide([], issue({ expiresAt: after(30 * day + 1), policy: capped })),
      { outcome: 'refused', rejection: { code: 'lifetime-beyond-cap' }, events: [] },
      'beyond',
    );
    t.match(
      decide([], issue({ expiresAt: null, policy: capped })),
      { outcome: 'refused', rejection: { code: 'lifetime-beyond-cap' }, events: [] },
      'no expiry',
    );
    t.match(
      decide([], issue({ expiresAt: after(29 * day), policy: capped })),
      {
        outcome: 'accepted',
        events: [{ data: { expiresAt: after(29 * day) } }],
      },
      'within: the requested deadline is kept as sent',
    );
  },
);

t.test('Limits: without max-ttl personal tokens have no cap', async (t) => {
  t.match(
    decide([], issue({ expiresAt: null })),
    { outcome: 'accepted', events: [{ data: { expiresAt: null } }] },
    'no expiry',
  );
  t.match(
    decide([], issue({ expiresAt: after(3650 * day) })),
    { outcome: 'accepted', events: [{ data: { expiresAt: after(3650 * day) } }] },
    'ten years',
  );
});

t.test(
  'rule 5 and Limits: a session credential gets the fixed session lifetime and never carries push scopes',
  async (t) => {
    for (const expiresAt of [null, after(-day), after(400 * day), after(5 * 60_000)]) {
      t.match(
        decide([], issue({ kind: 'session', expiresAt, pushScopes: ['studio'], scopes: ['acme'] })),
        {
          outcome: 'accepted',
          events: [
            { data: { kind: 'session', expiresAt: after(8 * hour), pushScopes: [], scopes: ['acme'], issuedAt: at } },
          ],
        },
        `asked for ${String(expiresAt)}`,
      );
    }
    t.match(
      decide([], issue({ kind: 'session', policy: policy({ sessionTtlMs: 2 * hour }) })),
      {
        outcome: 'accepted',
        events: [{ data: { expiresAt: after(2 * hour) } }],
      },
      'the configured session-ttl',
    );
  },
);

t.test(
  'revocation through the personal route: owner-scoped; not owned is indistinguishable from nonexistent',
  async (t) => {
    t.strictSame(decide([issued()], personalRoute('alice')), {
      outcome: 'accepted',
      events: [
        {
          type: 'token-revoked',
          data: {
            tokenId: 5,
            kind: 'personal',
            owner: 'alice',
            principal: 'alice',
            name: 'laptop',
            cause: 'deleted',
            revokedAt: at,
            revokedBy: 'alice',
          },
        },
      ],
    });
    const notOwned = decide([issued()], personalRoute('bob'));
    const missing = decide([], personalRoute('bob'));
    t.match(notOwned, { outcome: 'refused', rejection: { code: 'token-not-found' }, events: [] });
    t.strictSame(notOwned, missing, 'the same refusal, word for word');
    t.match(
      decide([issued({ kind: 'session' })], personalRoute('alice')),
      { outcome: 'accepted', events: [{ data: { kind: 'session' } }] },
      'session tokens are revoked there too',
    );
  },
);

t.test(
  'a machine credential is not reachable through /tokens/{id}, even by the administrator who provisioned it',
  async (t) => {
    const machineIssued = issued({
      kind: 'machine',
      owner: 'root',
      principal: 'ci-bot',
      apiScopes: ['roles:read'],
      expiresAt: after(day),
    });
    t.match(decide([machineIssued], personalRoute('root')), {
      outcome: 'refused',
      rejection: { code: 'token-not-found' },
      events: [],
    });
    t.match(
      decide([machineIssued], personalRoute('root', 'rotated')),
      { outcome: 'refused', rejection: { code: 'token-not-found' } },
      'nor rotated there',
    );
    t.match(
      decide([machineIssued], machineRoute()),
      {
        outcome: 'accepted',
        events: [
          { type: 'token-revoked', data: { kind: 'machine', owner: 'root', principal: 'ci-bot', revokedBy: 'root' } },
        ],
      },
      'the machine route reaches it, whoever provisioned it',
    );
    t.match(
      decide([issued()], machineRoute()),
      { outcome: 'refused', rejection: { code: 'token-not-found' } },
      'and reaches no personal token',
    );
  },
);

t.test('deleting a revoked token again records nothing', async (t) => {
  t.strictSame(decide([issued(), revoked], personalRoute('alice')), { outcome: 'accepted', events: [] });
});

t.test(
  'rotation: the old token is revoked with cause rotated; a revoked or expired token cannot be rotated (spec: 409)',
  async (t) => {
    t.match(decide([issued()], personalRoute('alice', 'rotated')), {
      outcome: 'accepted',
      events: [{ type: 'token-revoked', data: { cause: 'rotated', revokedAt: at } }],
    });
    t.match(decide([issued(), revoked], personalRoute('alice', 'rotated')), {
      outcome: 'refused',
      rejection: { code: 'token-not-active', detail: /revoked/ },
      events: [],
    });
    const expiring = issued({ expiresAt: after(-1) });
    t.match(decide([expiring], personalRoute('alice', 'rotated')), {
      outcome: 'refused',
      rejection: { code: 'token-not-active', detail: /expired/ },
      events: [],
    });
    t.match(
      decide([issued({ expiresAt: at })], personalRoute('alice', 'rotated')),
      { outcome: 'refused', rejection: { code: 'token-not-active' } },
      'expired at its very deadline',
    );
    t.match(
      decide([issued({ expiresAt: after(1) })], personalRoute('alice', 'rotated')),
      { outcome: 'accepted' },
      'still live a millisecond before',
    );
    t.match(
      decide([issued(), revoked], personalRoute('bob', 'rotated')),
      { outcome: 'refused', rejection: { code: 'token-not-found' } },
      'not owned wins over dead: 404, not 409',
    );
  },
);

t.test('the new half of a rotation carries name, scopes, deadline and kind over, with rotatedFrom', async (t) => {
  const kept = fields({ kind: 'session', scopes: ['acme'], pushScopes: [], expiresAt: after(hour) });
  t.strictSame(
    decide([], {
      type: 'issue-rotated-token',
      data: { ...kept, tokenId: 6, digest, rotatedFrom: 5 },
      meta: meta({ at }),
    }),
    {
      outcome: 'accepted',
      events: [
        {
          type: 'token-issued',
          data: { ...kept, tokenId: 6, digest, rotatedFrom: 5, issuedAt: at, issuedBy: 'alice' },
        },
      ],
    },
  );
});

t.test('lastUsedAt rule 3: a use is recorded at most once per token per minute', async (t) => {
  t.equal(lastUsedIntervalMs, 60_000);
  t.strictSame(decide([issued()], recordUse(at)), { outcome: 'accepted', events: [used(at)] }, 'the first use');
  t.strictSame(
    decide([issued(), used(at)], recordUse(after(59_000))),
    { outcome: 'accepted', events: [] },
    '59 s later: nothing',
  );
  t.strictSame(
    decide([issued(), used(at)], recordUse(after(59_999))),
    { outcome: 'accepted', events: [] },
    'just under a minute: nothing',
  );
  t.strictSame(
    decide([issued(), used(at)], recordUse(after(60_000))),
    { outcome: 'accepted', events: [used(after(60_000))] },
    '60 s later: recorded',
  );
  t.strictSame(
    decide([issued(), used(at), used(after(60_000))], recordUse(after(119_000))),
    { outcome: 'accepted', events: [] },
    'measured from the latest recorded use',
  );
});

t.test('lastUsedAt rule 4: a revoked, expired or unknown token records no use', async (t) => {
  t.strictSame(decide([issued(), revoked], recordUse(at)), { outcome: 'accepted', events: [] }, 'revoked');
  t.strictSame(
    decide([issued({ expiresAt: after(-1) })], recordUse(at)),
    { outcome: 'accepted', events: [] },
    'expired',
  );
  t.strictSame(
    decide([issued({ expiresAt: at })], recordUse(at)),
    { outcome: 'accepted', events: [] },
    'at its deadline',
  );
  t.strictSame(decide([], recordUse(at)), { outcome: 'accepted', events: [] }, 'unknown');
  t.strictSame(
    decide([issued({ expiresAt: after(1) })], recordUse(at)),
    { outcome: 'accepted', events: [used(at)] },
    'live until its deadline',
  );
});
