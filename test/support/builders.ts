// Event and command builders for decider tests: every field has a default, a test names only what it
// varies. Each builder's defaults are typed by the event type it names (EventOf, as the domain's `fact`),
// so the compiler checks them against src/domain/events.ts. Types come from the *.events.ts files,
// src/domain/events.ts and shared/decider.ts only: deciders may move between folders without touching this file.
import type { DomainEventType, EventOf } from '../../src/domain/events.ts';
import type { Command, CommandMeta } from '../../src/domain/kernel/decider.ts';
import type { Verdict } from '../../src/domain/vetting/vetting.events.ts';

/** The instant commands are decided at unless a test says otherwise. */
export const at = '2026-03-01T10:00:00.000Z';
/** An hour before `at`: when the history a test starts from happened. */
export const earlier = '2026-03-01T09:00:00.000Z';
/** `at` moved by `ms` milliseconds. */
export const after = (ms: number, from = at): string => new Date(Date.parse(from) + ms).toISOString();
/** A 40-hex commit id made of one repeated character. */
export const sha = (c = 'a'): string => c.repeat(40);

/** The marketplace every builder belongs to unless told otherwise. */
export const acme = { marketplaceId: 7, marketplace: 'acme' } as const;

export const meta = (overrides: Partial<CommandMeta> = {}): CommandMeta => ({
  principal: 'alice',
  actorType: 'human',
  at,
  correlationId: 'corr-1',
  ...overrides,
});

/** A command of the decider's union `C`, with `meta(overrides)`: `command<CreateWaiver>('create-waiver', {...})`. */
export const command = <C extends Command<string, unknown>>(
  type: C['type'],
  data: C['data'],
  overrides: Partial<CommandMeta> = {},
): C => ({ type, data, meta: meta(overrides) }) as C;

type Data<T extends DomainEventType> = EventOf<T>['data'];
/** A builder of `type` events: defaults (which may depend on the overrides), then the overrides. */
const builder =
  <T extends DomainEventType>(type: T, defaults: (overrides: Partial<Data<T>>) => Data<T>) =>
  // `fact` cannot check a generic T; each builder's defaults are checked against its concrete Data<T> instead.
  (overrides: Partial<Data<T>> = {}): EventOf<T> =>
    ({ type, data: { ...defaults(overrides), ...overrides } }) as unknown as EventOf<T>;

// Marketplace and snapshot

export const registered = builder('marketplace-registered', () => ({
  marketplaceId: acme.marketplaceId,
  name: acme.marketplace,
  origin: 'upstream',
  url: 'https://example.test/acme.git',
  pushPolicy: null,
  registeredAt: earlier,
  registeredBy: 'alice',
}));
export const syncModeChanged = builder('sync-mode-changed', (o) => ({
  marketplaceId: acme.marketplaceId,
  name: acme.marketplace,
  mode: 'webhook',
  previousMode: 'on-demand',
  sealedWebhookSecret: (o.mode ?? 'webhook') === 'webhook' ? 'v1.sealed' : null,
}));
/** A held snapshot; `state: 'rejected'` carries a violation. `upstreamSha` follows `sha`. */
export const captured = builder('snapshot-captured', (o) => ({
  ...acme,
  snapshotId: 1,
  sha: sha(),
  upstreamSha: o.sha ?? sha(),
  state: 'held',
  violation: o.state === 'rejected' ? 'bad manifest' : null,
  capturedAt: earlier,
  ingestedBy: 'alice',
  trigger: 'on-demand',
  committedAt: null,
  description: null,
}));
export const approved = builder('snapshot-approved', () => ({
  ...acme,
  snapshotId: 1,
  sha: sha(),
  approvedAt: earlier,
  approvedBy: 'bob',
  overrideReason: null,
}));
export const rejected = builder('snapshot-rejected', () => ({
  ...acme,
  snapshotId: 1,
  sha: sha(),
  rejectedAt: earlier,
  rejectedBy: 'bob',
}));
export const revoked = builder('snapshot-revoked', () => ({
  ...acme,
  snapshotId: 1,
  sha: sha(),
  reason: 'violation',
  administrative: false,
  revokedAt: earlier,
  revokedBy: 'revet-policy',
}));
export const pushed = builder('marketplace-pushed', () => ({
  marketplaceId: acme.marketplaceId,
  marketplace: 'team',
  ref: 'refs/heads/main',
  previousTip: null,
  newTip: sha(),
  forced: false,
  pushPolicy: 'append-only',
  pushedAt: at,
}));

// Tokens and roles

export const tokenIssued = builder('token-issued', (o) => ({
  tokenId: 5,
  digest: 'd'.repeat(64),
  kind: 'personal',
  owner: 'alice',
  principal: o.owner ?? 'alice',
  name: 'laptop',
  scopes: [],
  pushScopes: [],
  apiScopes: [],
  expiresAt: null,
  rotatedFrom: null,
  issuedAt: after(-86_400_000),
  issuedBy: o.owner ?? 'alice',
}));
export const tokenRevoked = builder('token-revoked', () => ({
  tokenId: 5,
  kind: 'personal',
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  cause: 'deleted',
  revokedAt: after(-3_600_000),
  revokedBy: 'alice',
}));
export const tokenUsed = builder('token-used', () => ({ tokenId: 5, usedAt: at }));
export const roleGranted = builder('role-granted', (o) => ({
  grantId: 1,
  principal: 'bob',
  role: 'approver',
  marketplace: o.role === undefined || o.role === 'approver' ? acme.marketplace : null,
  marketplaceId: o.role === undefined || o.role === 'approver' ? 3 : null,
  grantedBy: 'root',
  grantedAt: '2026-02-01T00:00:00.000Z',
}));
export const roleRevoked = builder('role-revoked', () => ({
  grantId: 1,
  principal: 'bob',
  role: 'approver',
  marketplace: acme.marketplace,
  marketplaceId: 3,
  revokedBy: 'root',
  revokedAt: at,
}));

// Vetting

type Finding = Verdict['findings'][number];
export const finding = (overrides: Partial<Finding> = {}): Finding => ({
  id: 'secrets-aws',
  severity: 'HIGH',
  location: 'plugins/a/config.env:3',
  message: 'AWS Secret Access Key',
  ...overrides,
});
/** A connector's verdict; PASS with no findings unless told otherwise. */
export const verdict = (overrides: Partial<Verdict> = {}): Verdict => ({
  verdictId: 1,
  connector: 'secrets',
  position: 0,
  state: 'PASS',
  detail: null,
  reportUrl: null,
  findings: [],
  ...overrides,
});
export const runRef = { runId: 11, snapshotId: 1, ...acme, sha: sha(), trigger: 'ingestion' } as const;
export const vettingCompleted = builder('vetting-completed', (o) => ({
  ...runRef,
  outcome: 'CLEAR',
  startedAt: earlier,
  finishedAt: earlier,
  chain: (o.verdicts ?? [verdict()]).map((v) => v.connector),
  mode: 'run-all',
  verdicts: [verdict()],
}));
export const chainModeChanged = builder('vetting-chain-mode-changed', () => ({
  mode: 'stop-on-failure',
  reason: 'fail fast',
}));
export const chainOrderChanged = builder('vetting-chain-order-changed', () => ({
  order: ['secrets', 'manifest'],
  reason: 'cheap first',
}));
export const vetterToggled = builder('vetter-toggled', (o) => ({
  vetter: 'secrets',
  enabled: false,
  reason: 'noisy',
  scope: o.marketplaceId ? 'marketplace' : 'global',
  marketplaceId: null,
  marketplace: null,
}));
export const waiverCreated = builder('waiver-created', (o) => ({
  waiverId: 21,
  ...acme,
  snapshotId: 1,
  ruleId: 'secrets-aws',
  scope: 'SNAPSHOT',
  scopeValue: o.scope === 'PATH' ? 'plugins/a' : sha(),
  justification: 'a documented test key',
  approvedBy: 'alice',
  createdAt: earlier,
  expiresAt: after(86_400_000),
}));
export const waiverRevoked = builder('waiver-revoked', () => ({
  waiverId: 21,
  ...acme,
  ruleId: 'secrets-aws',
  revokedAt: earlier,
  revokedBy: 'alice',
}));
export const waiverLapsed = builder('waiver-lapsed', () => ({
  waiverId: 21,
  ...acme,
  ruleId: 'secrets-aws',
  expiresAt: earlier,
}));

// Policy

export const policyRuleCreated = builder('policy-rule-created', () => ({
  ruleId: 4,
  name: 'no-hooks',
  description: 'no plugin hooks',
  expression: 'size(hooks) > 0',
  enabled: true,
  createdBy: 'root',
  createdAt: earlier,
}));
export const policyRuleDeleted = builder('policy-rule-deleted', () => ({ ruleId: 4, name: 'no-hooks' }));
