// Representative recorded events of every domain event type (and the branches of their ledger mapping), for the
// golden test of the ledger mapping (ledger.golden.test.ts). Every event is built with `fact`, so the compiler
// checks its data against the type it names.
import type { EventMetadata, RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { fact, type DomainEvent } from '../../../src/domain/events.ts';

export type Sample = Readonly<{ name: string; recorded: RecordedEvent }>;

const sha = (c: string) => c.repeat(40);
const at = '2026-03-01T10:00:00.000Z';
const admin: Partial<EventMetadata> = { principal: 'alice', actorType: 'human' };
const machine: Partial<EventMetadata> = { principal: 'ci-bot', actorType: 'machine', credentialId: 17 };
const system: Partial<EventMetadata> = { principal: 'system', actorType: 'system' };
const fetcher: Partial<EventMetadata> = { principal: 'bob', actorType: 'human', source: '10.0.0.7', credentialId: 12 };

let position = 100n;
const sample = (name: string, event: DomainEvent | { type: string; data: unknown }, meta = admin): Sample => {
  position += 1n;
  return {
    name,
    recorded: {
      id: `event-${position}`,
      streamId: 's-1',
      revision: 0n,
      position,
      type: event.type,
      data: event.data,
      recordedAt: `2026-03-01T10:00:${String(position % 60n).padStart(2, '0')}.123Z`,
      metadata: { principal: 'root', actorType: 'human', correlationId: `c-${position}`, at, ...meta },
    },
  };
};

const where = { marketplaceId: 3, marketplace: 'acme' };
const run = { runId: 7, snapshotId: 11, ...where, sha: sha('a'), trigger: 'ingestion' as const };
const verdict = {
  verdictId: 1,
  connector: 'static',
  position: 0,
  state: 'WARN' as const,
  detail: null,
  reportUrl: null,
  findings: [{ id: 'R1', severity: 'LOW' as const, location: 'a.md:1', message: 'm' }],
};
const uncovered = [{ connector: 'static', ruleId: 'R9', location: 'x.json:3', severity: 'HIGH', message: 'bad' }];
const revet = { ...run, trigger: 'revet-scheduled' as const, mode: 'ENFORCE' as const, outcome: 'BLOCKED' };
const token = {
  tokenId: 5,
  digest: 'f00d'.repeat(16),
  kind: 'personal' as const,
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  scopes: ['acme'],
  pushScopes: [],
  apiScopes: [],
  expiresAt: '2026-04-01T00:00:00.000Z',
  rotatedFrom: null,
  issuedAt: at,
  issuedBy: 'alice',
};
const machineToken = {
  ...token,
  kind: 'machine' as const,
  owner: 'root',
  principal: 'ci-bot',
  name: 'ci',
  scopes: [],
  apiScopes: ['roles:read', 'audit:read'],
  expiresAt: null,
};
const tokenGone = {
  tokenId: 5,
  kind: 'personal' as const,
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  cause: 'deleted' as const,
  revokedAt: at,
  revokedBy: 'alice',
};
const estateReport = {
  ranAt: at,
  trigger: 'startup' as const,
  entries: [],
  created: 1,
  updated: 2,
  unchanged: 3,
  failed: 0,
};

const marketplaceSamples = [
  sample(
    'marketplace-registered',
    fact('marketplace-registered', {
      marketplaceId: 3,
      name: 'acme',
      origin: 'upstream',
      url: 'https://example.com/acme.git',
      pushPolicy: null,
      registeredAt: at,
      registeredBy: 'alice',
    }),
  ),
  sample(
    'marketplace-removed',
    fact('marketplace-removed', {
      marketplaceId: 3,
      name: 'acme',
      reason: 'retired upstream',
      removedAt: at,
      removedBy: 'alice',
      withdrawnSnapshotIds: [1, 2],
    }),
  ),
  sample(
    'marketplace-removed, one snapshot',
    fact('marketplace-removed', {
      marketplaceId: 3,
      name: 'acme',
      reason: 'r',
      removedAt: at,
      removedBy: 'alice',
      withdrawnSnapshotIds: [9],
    }),
  ),
  sample(
    'marketplace-push-scopes-removed',
    fact('marketplace-push-scopes-removed', { marketplaceId: 3, name: 'acme', tokenIds: [4, 5] }),
  ),
  sample(
    'sync-mode-changed, into webhook',
    fact('sync-mode-changed', {
      marketplaceId: 3,
      name: 'acme',
      mode: 'webhook',
      previousMode: 'scheduled',
      sealedWebhookSecret: 'sealed',
    }),
  ),
  sample(
    'sync-mode-changed, out of webhook',
    fact('sync-mode-changed', {
      marketplaceId: 3,
      name: 'acme',
      mode: 'on-demand',
      previousMode: 'webhook',
      sealedWebhookSecret: null,
    }),
  ),
  sample(
    'sync-mode-changed',
    fact('sync-mode-changed', {
      marketplaceId: 3,
      name: 'acme',
      mode: 'scheduled',
      previousMode: 'on-demand',
      sealedWebhookSecret: null,
    }),
  ),
  sample(
    'marketplace-selection-set',
    fact('marketplace-selection-set', {
      marketplaceId: 3,
      name: 'acme',
      include: ['a', 'b'],
      exclude: ['c'],
      setAt: at,
      setBy: 'alice',
    }),
  ),
  sample(
    'marketplace-selection-set, exclude only',
    fact('marketplace-selection-set', {
      marketplaceId: 3,
      name: 'acme',
      include: [],
      exclude: ['c'],
      setAt: at,
      setBy: 'alice',
    }),
  ),
  sample(
    'marketplace-selection-set, cleared',
    fact('marketplace-selection-set', {
      marketplaceId: 3,
      name: 'acme',
      include: [],
      exclude: [],
      setAt: at,
      setBy: 'alice',
    }),
  ),
  sample('marketplace-name-reserved', fact('marketplace-name-reserved', { name: 'acme', marketplaceId: 3 })),
  sample('marketplace-name-released', fact('marketplace-name-released', { name: 'acme', marketplaceId: 3 })),
  sample(
    'marketplace-pushed',
    fact('marketplace-pushed', {
      ...where,
      ref: 'refs/heads/main',
      previousTip: sha('1'),
      newTip: sha('2'),
      forced: true,
      pushPolicy: 'allow-rewrite',
      pushedAt: at,
    }),
    fetcher,
  ),
  sample(
    'marketplace-pushed, first push, no client address',
    fact('marketplace-pushed', {
      ...where,
      ref: 'refs/heads/main',
      previousTip: null,
      newTip: sha('2'),
      forced: false,
      pushPolicy: 'append-only',
      pushedAt: at,
    }),
    machine,
  ),
];

const accessSamples = [
  sample(
    'info-refs',
    fact('info-refs', { ...where, ref: 'refs/heads/main', sha: sha('a'), credentialKind: 'idp' }),
    fetcher,
  ),
  sample(
    'info-refs, nothing resolved',
    fact('info-refs', { marketplaceId: null, marketplace: 'gone', ref: null, sha: null, credentialKind: 'pat' }),
    { principal: 'bob', actorType: 'human', credentialId: 12 },
  ),
  sample(
    'upload-pack',
    fact('upload-pack', {
      ...where,
      credentialKind: 'pat',
      wants: [
        { sha: sha('a'), ref: 'refs/heads/main' },
        { sha: sha('b'), ref: `refs/snapshots/${sha('b')}` },
        { sha: sha('c'), ref: null },
      ],
    }),
    { ...machine, source: '10.0.0.8' },
  ),
  sample('upload-pack, no wants', fact('upload-pack', { ...where, credentialKind: 'pat', wants: [] }), fetcher),
  sample(
    'role-granted',
    fact('role-granted', {
      grantId: 2,
      principal: 'bob',
      role: 'approver',
      marketplace: 'acme',
      marketplaceId: 3,
      grantedBy: 'alice',
      grantedAt: at,
    }),
  ),
  sample(
    'role-revoked, global',
    fact('role-revoked', {
      grantId: 2,
      principal: 'bob',
      role: 'auditor',
      marketplace: null,
      marketplaceId: null,
      revokedBy: 'alice',
      revokedAt: at,
    }),
  ),
  sample('roles-read', fact('roles-read', { grants: 4 }), machine),
  sample('token-issued', fact('token-issued', token)),
  sample('token-issued, every marketplace', fact('token-issued', { ...token, scopes: [], expiresAt: null })),
  sample('token-issued, rotated', fact('token-issued', { ...token, tokenId: 6, rotatedFrom: 5 })),
  sample('token-issued, machine', fact('token-issued', machineToken), { ...admin, principal: 'root' }),
  sample('token-issued, machine rotated', fact('token-issued', { ...machineToken, tokenId: 8, rotatedFrom: 7 })),
  sample('token-revoked', fact('token-revoked', tokenGone)),
  sample('token-revoked, rotated', fact('token-revoked', { ...tokenGone, cause: 'rotated' })),
  sample(
    'token-revoked, machine',
    fact('token-revoked', { ...tokenGone, kind: 'machine', principal: 'ci-bot', name: 'ci' }),
  ),
  sample('token-used', fact('token-used', { tokenId: 5, usedAt: at }), fetcher),
];

const snapshotSamples = [
  sample(
    'snapshot-captured',
    fact('snapshot-captured', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      upstreamSha: sha('a'),
      state: 'held',
      violation: null,
      capturedAt: at,
      ingestedBy: 'alice',
      trigger: 'on-demand',
      committedAt: null,
      description: null,
    }),
  ),
  sample(
    'snapshot-captured, rejected',
    fact('snapshot-captured', {
      snapshotId: 12,
      ...where,
      sha: sha('b'),
      upstreamSha: sha('b'),
      state: 'rejected',
      violation: 'manifest names a hook',
      capturedAt: at,
      ingestedBy: null,
      trigger: 'scheduled',
      committedAt: at,
      description: 'd',
    }),
    system,
  ),
  sample(
    'plugin-withheld',
    fact('plugin-withheld', {
      ...where,
      snapshotId: 11,
      sha: sha('a'),
      plugin: 'p',
      source: { source: 'github', repo: 'o/r' },
      reason: 'unreadable',
      nextStep: 'fix it',
    }),
    system,
  ),
  sample(
    'ingest-succeeded',
    fact('ingest-succeeded', { ...where, at, snapshotId: 11, sha: sha('a'), created: true, trigger: 'webhook' }),
  ),
  sample(
    'ingest-succeeded, already captured',
    fact('ingest-succeeded', { ...where, at, snapshotId: 11, sha: sha('a'), created: false, trigger: 'push' }),
  ),
  sample(
    'ingest-failed',
    fact('ingest-failed', {
      ...where,
      at,
      reason: 'fetch failed',
      rootCause: 'dns',
      nextStep: 'check the url',
      trigger: 'scheduled',
    }),
    system,
  ),
  sample(
    'snapshot-approved',
    fact('snapshot-approved', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      approvedAt: at,
      approvedBy: 'alice',
      overrideReason: null,
    }),
  ),
  sample(
    'snapshot-approved, override',
    fact('snapshot-approved', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      approvedAt: at,
      approvedBy: 'alice',
      overrideReason: 'accepted risk',
    }),
  ),
  sample(
    'snapshot-rejected',
    fact('snapshot-rejected', { snapshotId: 11, ...where, sha: sha('a'), rejectedAt: at, rejectedBy: 'alice' }),
  ),
  sample(
    'snapshot-rejected, reason',
    fact('snapshot-rejected', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      rejectedAt: at,
      rejectedBy: 'alice',
      reason: 'not ours',
    }),
  ),
  sample(
    'snapshot-revoked',
    fact('snapshot-revoked', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      reason: 'compromised',
      administrative: false,
      revokedAt: at,
      revokedBy: 'alice',
    }),
  ),
  sample(
    'snapshot-soft-deleted',
    fact('snapshot-soft-deleted', {
      snapshotId: 11,
      ...where,
      sha: sha('a'),
      reason: 'superseded',
      deletedAt: at,
      deletedBy: 'retention-policy',
      purgeAfter: '2026-04-01T00:00:00.000Z',
    }),
    { principal: 'retention-policy', actorType: 'system' },
  ),
  sample(
    'snapshot-restored',
    fact('snapshot-restored', { snapshotId: 11, ...where, sha: sha('a'), restoredAt: at, restoredBy: 'alice' }),
  ),
  sample(
    'snapshot-purged',
    fact('snapshot-purged', { snapshotId: 11, ...where, sha: sha('a'), withdrawn: false, purgedAt: at }),
    system,
  ),
  sample(
    'snapshot-purged, withdrawn',
    fact('snapshot-purged', { snapshotId: 11, ...where, sha: sha('a'), withdrawn: true, purgedAt: at }),
    system,
  ),
];

const publicationSamples = [
  sample(
    'publication-repaired',
    fact('publication-repaired', { ...where, restored: ['refs/heads/main', 'refs/tags/v1'], removed: ['refs/x'] }),
    { principal: 'publication-reconciler', actorType: 'system' },
  ),
  sample(
    'publication-repaired, restored only',
    fact('publication-repaired', { ...where, restored: ['refs/heads/main'], removed: [] }),
    system,
  ),
  sample(
    'publication-served-not-approved',
    fact('publication-served-not-approved', { ...where, ref: 'refs/heads/main', sha: sha('d') }),
    system,
  ),
  sample(
    'snapshot-unpublish-failed',
    fact('snapshot-unpublish-failed', { ...where, snapshotId: 11, sha: sha('a'), error: 'EACCES' }),
    system,
  ),
];

const vettingSamples = [
  sample('vetting-verdict', fact('vetting-verdict', { ...run, verdict, previousState: null }), system),
  sample(
    'vetting-verdict, changed',
    fact('vetting-verdict', {
      ...run,
      trigger: 'revet-manual',
      verdict: { ...verdict, state: 'PASS', findings: [] },
      previousState: 'WARN',
    }),
  ),
  sample(
    'vetting-completed',
    fact('vetting-completed', {
      ...run,
      outcome: 'CLEAR',
      startedAt: at,
      finishedAt: at,
      chain: ['static', 'llm'],
      mode: 'run-all',
      verdicts: [verdict, verdict],
    }),
    system,
  ),
  sample(
    'vetter-toggled, marketplace',
    fact('vetter-toggled', {
      vetter: 'llm',
      scope: 'marketplace',
      ...where,
      enabled: false,
      reason: 'too slow',
    }),
  ),
  sample(
    'vetter-toggled, global',
    fact('vetter-toggled', {
      vetter: 'llm',
      scope: 'global',
      marketplaceId: null,
      marketplace: null,
      enabled: true,
      reason: 'back',
    }),
  ),
  sample('vetting-chain-mode-changed', fact('vetting-chain-mode-changed', { mode: 'stop-on-failure', reason: 'r' })),
  sample(
    'vetting-chain-order-changed',
    fact('vetting-chain-order-changed', { order: ['llm', 'static'], reason: 'cheaper first' }),
  ),
  sample(
    'waiver-created, snapshot',
    fact('waiver-created', {
      waiverId: 4,
      ...where,
      snapshotId: 11,
      ruleId: 'R1',
      scope: 'SNAPSHOT',
      scopeValue: sha('a'),
      justification: 'known false positive',
      approvedBy: 'alice',
      createdAt: at,
      expiresAt: '2026-05-01T00:00:00.000Z',
    }),
  ),
  sample(
    'waiver-created, path',
    fact('waiver-created', {
      waiverId: 5,
      ...where,
      snapshotId: 11,
      ruleId: 'R1',
      scope: 'PATH',
      scopeValue: 'plugins/p/**',
      justification: 'vendored',
      approvedBy: 'alice',
      createdAt: at,
      expiresAt: '2026-05-01T00:00:00.000Z',
    }),
  ),
  sample(
    'waiver-revoked',
    fact('waiver-revoked', { waiverId: 4, ...where, ruleId: 'R1', revokedAt: at, revokedBy: 'alice' }),
  ),
  sample(
    'waiver-lapsed',
    fact('waiver-lapsed', { waiverId: 4, ...where, ruleId: 'R1', expiresAt: '2026-05-01T00:00:00.000Z' }),
    system,
  ),
  sample('revet-clear', fact('revet-clear', { ...revet, outcome: 'CLEAR', uncovered: [] }), system),
  sample('revet-inconclusive', fact('revet-inconclusive', { ...revet, mode: 'WARN', uncovered }), system),
  sample('revet-violation', fact('revet-violation', { ...revet, uncovered, revoked: true }), {
    principal: 'revet-policy',
    actorType: 'system',
  }),
  sample(
    'revet-violation-affected',
    fact('revet-violation-affected', {
      ...run,
      affected: [
        { principal: 'bob', fetches: 1, lastFetch: at },
        { principal: 'carol', fetches: 3, lastFetch: at },
      ],
    }),
    system,
  ),
  sample('revet-violation-affected, nobody', fact('revet-violation-affected', { ...run, affected: [] }), system),
];

const policySamples = [
  sample(
    'policy-rule-created',
    fact('policy-rule-created', {
      ruleId: 1,
      name: 'no hooks',
      description: 'd',
      expression: 'hooks == 0',
      enabled: true,
      createdBy: 'alice',
      createdAt: at,
    }),
  ),
  sample(
    'policy-rule-updated',
    fact('policy-rule-updated', {
      ruleId: 1,
      name: 'no hooks',
      description: 'd',
      expression: 'hooks < 1',
      enabled: false,
      updatedBy: 'alice',
      updatedAt: at,
    }),
  ),
  sample('policy-rule-deleted', fact('policy-rule-deleted', { ruleId: 1, name: 'no hooks' })),
  sample(
    'policy-denied',
    fact('policy-denied', {
      ...where,
      snapshotId: 11,
      sha: sha('a'),
      rule: 'no hooks',
      ruleId: 1,
      outcome: 'matched',
      error: null,
    }),
  ),
  sample(
    'policy-denied, error',
    fact('policy-denied', {
      ...where,
      snapshotId: 11,
      sha: sha('a'),
      rule: 'no hooks',
      ruleId: 1,
      outcome: 'error',
      error: 'no such variable',
    }),
  ),
];

const catalogSamples = [
  sample(
    'catalog-rebuilt',
    fact('catalog-rebuilt', {
      catalog: 'all',
      sha: sha('e'),
      generatedAt: at,
      trigger: 'reactor',
      constituents: [{ marketplace: 'acme', sha: sha('a') }],
      collisions: [{ name: 'p', marketplaces: ['acme', 'beta'] }],
      plugins: 9,
    }),
    { principal: 'catalog-builder', actorType: 'system' },
  ),
  sample(
    'catalog-rebuilt, withdrawn',
    fact('catalog-rebuilt', {
      catalog: 'all',
      sha: null,
      generatedAt: at,
      trigger: 'api',
      constituents: [],
      collisions: [],
      plugins: 0,
    }),
  ),
  sample(
    'catalog-name-collision',
    fact('catalog-name-collision', { catalog: 'all', sha: sha('e'), name: 'p', marketplaces: ['acme', 'beta'] }),
    system,
  ),
  sample('catalog-rebuild-requested', fact('catalog-rebuild-requested', { catalog: 'all' })),
];

const mirrorSamples = [
  sample(
    'mirror-reconciled',
    fact('mirror-reconciled', {
      at,
      trigger: 'change',
      requests: [],
      targets: [{ name: 'acme', marketplaceId: 3, outcome: 'ok', error: null, pushed: 1, deleted: 0, retired: false }],
    }),
    system,
  ),
  sample('mirror-reconcile-requested', fact('mirror-reconcile-requested', { requestId: 'r-1' })),
  sample(
    'mirror-reconciliation-refused',
    fact('mirror-reconciliation-refused', { name: 'acme', marketplaceId: 3, reason: 'storage answered partly' }),
    system,
  ),
  sample(
    'mirror-reconciliation-refused, the catalog',
    fact('mirror-reconciliation-refused', { name: 'all', marketplaceId: null, reason: 'r' }),
    system,
  ),
];

const housekeepingSamples = [
  sample(
    'staging-refs-swept',
    fact('staging-refs-swept', {
      refs: [{ marketplaceId: 3, ref: 'refs/staging/1', sha: sha('f'), createdAt: at }],
      maxAgeMs: 86_400_000,
      sweptAt: at,
    }),
    system,
  ),
  sample(
    'staging-refs-swept, many',
    fact('staging-refs-swept', {
      refs: Array.from({ length: 23 }, (_, i) => ({
        marketplaceId: 3,
        ref: `refs/staging/${i}`,
        sha: sha((i % 10).toString()),
        createdAt: at,
      })),
      maxAgeMs: 1000,
      sweptAt: at,
    }),
    system,
  ),
  sample('webhook-deliveries-swept', fact('webhook-deliveries-swept', { before: at, count: 12 }), system),
  sample(
    'retention-evaluated',
    fact('retention-evaluated', {
      marketplace: null,
      trigger: 'scheduled',
      selected: 4,
      acted: 3,
      vetoed: 1,
      heldTooLong: 2,
      superseded: 1,
      evaluatedAt: at,
    }),
    system,
  ),
  sample(
    'retention-evaluated, one marketplace',
    fact('retention-evaluated', {
      marketplace: 'acme',
      trigger: 'on-demand',
      selected: 0,
      acted: 0,
      vetoed: 0,
      heldTooLong: 0,
      superseded: 0,
      evaluatedAt: at,
    }),
  ),
  sample(
    'estate-reconcile-triggered',
    fact('estate-reconcile-triggered', { report: estateReport, file: '/etc/estate.yaml' }),
    { principal: 'config-reconciler', actorType: 'system' },
  ),
  sample(
    'estate-reconciliation-failed',
    fact('estate-reconciliation-failed', {
      trigger: 'api',
      file: '/etc/estate.yaml',
      failedAt: at,
      problems: ['estate.yaml:3: bad', 'estate.yaml:9: worse'],
    }),
  ),
  sample(
    'marketplace-upstream-unreachable',
    fact('marketplace-upstream-unreachable', {
      marketplaceId: 3,
      name: 'acme',
      url: 'https://example.com/acme.git',
      reason: 'fetch failed',
      rootCause: '404',
      nextStep: 'check the url',
    }),
    system,
  ),
  sample(
    'audit-checkpoint-signed',
    fact('audit-checkpoint-signed', { entryId: 9, hash: 'ab'.repeat(32), signedAt: at, kid: 'k', jws: 'a.b.c' }),
    system,
  ),
];

const webhookSamples = [
  sample(
    'webhook-subscriber-created',
    fact('webhook-subscriber-created', {
      subscriberId: 1,
      url: 'https://hooks.example.com/x?token=secret',
      events: ['snapshot.approved'],
      description: null,
      enabled: true,
      sealedSecret: 'sealed',
      createdBy: 'alice',
      createdAt: at,
      ledgerUrl: 'https://hooks.example.com/x?token=***',
    }),
  ),
  sample(
    'webhook-subscriber-created, before masked urls',
    fact('webhook-subscriber-created', {
      subscriberId: 2,
      url: 'https://hooks.example.com/y',
      events: [],
      description: 'd',
      enabled: false,
      sealedSecret: 'sealed',
      createdBy: 'alice',
      createdAt: at,
    }),
  ),
  sample(
    'webhook-subscriber-deleted',
    fact('webhook-subscriber-deleted', { subscriberId: 1, url: 'https://hooks.example.com/y' }),
  ),
  sample(
    'audit-sink-created',
    fact('audit-sink-created', {
      sinkId: 1,
      name: 'siem',
      url: 'https://siem.example.com/in?k=v',
      enabled: true,
      batchSize: null,
      sealedSecret: 'sealed',
      createdBy: 'alice',
      createdAt: at,
      ledgerUrl: 'https://siem.example.com/in?k=***',
    }),
  ),
  sample(
    'audit-sink-updated',
    fact('audit-sink-updated', { sinkId: 1, name: 'siem', enabled: false, batchSize: 250 }),
    machine,
  ),
  sample(
    'audit-sink-updated, the setting',
    fact('audit-sink-updated', { sinkId: 1, name: 'siem', enabled: true, batchSize: null }),
  ),
  sample('audit-sink-deleted', fact('audit-sink-deleted', { sinkId: 1, name: 'siem' })),
  sample('audit-sink-cursor-set', fact('audit-sink-cursor-set', { sinkId: 1, name: 'siem', position: 0 })),
  sample(
    'webhook-delivery-attempted',
    fact('webhook-delivery-attempted', {
      deliveryId: 1,
      attempt: 1,
      outcome: 'delivered',
      status: 200,
      error: null,
      nextAttemptAt: null,
      at,
    }),
    system,
  ),
  sample(
    'audit-batch-offered',
    fact('audit-batch-offered', { sinkId: 1, name: 'siem', from: 0, to: 10, count: 10, at }),
    system,
  ),
  sample('an event type this version does not know', { type: 'something-from-the-future', data: { x: 1 } }),
];

export const ledgerSamples: readonly Sample[] = [
  ...marketplaceSamples,
  ...accessSamples,
  ...snapshotSamples,
  ...publicationSamples,
  ...vettingSamples,
  ...policySamples,
  ...catalogSamples,
  ...mirrorSamples,
  ...housekeepingSamples,
  ...webhookSamples,
  // Added after the rest, so the positions and instants of the samples before it stay as captured.
  sample(
    'external-caches-pruned',
    fact('external-caches-pruned', {
      caches: [sha('a').padEnd(64, '0'), sha('b').padEnd(64, '1')],
      maxAgeMs: 604_800_000,
      prunedAt: at,
    }),
    system,
  ),
];
