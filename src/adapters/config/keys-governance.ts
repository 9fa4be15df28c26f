// Keys of what the gateway governs: the catalog, marketplace sync, the audit export and vetting.
import { hostPatternProblem } from '../../domain/outbound/external-hosts.ts';
import { cronSchedule } from './checks.ts';
import { catalogNamePattern, g, revetModes, url } from './key-values.ts';
import { choice, count, duration, flag, integer, list, optionalText, text } from './key-spec.ts';

/** The aggregated catalog, scheduled sync and what an ingest resolves. */
export const marketplaceKeys = {
  catalog: {
    enabled: flag(g('catalog.enabled'), true, 'Serve the aggregated catalog marketplace.'),
    name: text(g('catalog.name'), 'catalog', 'Name of the aggregated catalog marketplace (a marketplace name).', {
      pattern: catalogNamePattern,
    }),
    guard: flag(
      g('catalog.guard'),
      false,
      'List the first-party gateway-guard plugin in the catalog: its SessionStart hook warns users whose ' +
        'installed marketplaces carry revoked content (docs/guard.md).',
    ),
  },
  sync: {
    schedule: text(
      g('sync.schedule'),
      '*/15 * * * *',
      'Cron expression (5 or 6 fields, as node-cron reads it) for scheduled ingestion of marketplaces ' +
        'in scheduled sync mode.',
      { check: cronSchedule },
    ),
    maxWebhookBodyBytes: count(
      g('sync.max-webhook-body-bytes'),
      1048576,
      'Largest accepted inbound forge webhook body (POST /hooks/{marketplace}), in bytes; larger bodies get 413.',
    ),
  },
  ingest: {
    maxExternalSources: count(
      g('ingest.max-external-sources'),
      1000,
      'Most external plugin sources (github, url, git-subdir) one marketplace may have resolved; ' +
        'a manifest with more is captured as a rejected snapshot naming the limit.',
    ),
    externalSources: choice(
      g('ingest.external-sources'),
      ['withhold-unresolved', 'require-all'],
      'withhold-unresolved',
      'An external plugin source that cannot be read: withhold-unresolved withholds that plugin (recorded on ' +
        'the snapshot, the ledger and its vetting report; the rest is served); require-all fails the ingest (502).',
    ),
    concurrency: count(
      g('ingest.concurrency'),
      2,
      'Most ingests running at once in one gateway process, each of another marketplace (a marketplace never ' +
        'has two at once); the others wait in a queue, oldest first (GET /api/v1/ingests).',
    ),
    fetchConcurrency: count(
      g('ingest.fetch-concurrency'),
      8,
      'External plugin sources fetched at once during an ingest.',
    ),
    externalHosts: list(
      g('ingest.external-hosts'),
      [],
      'Hosts external plugin sources may name (github.com, or *.example.com for any name under it). A ' +
        'source on another host is withheld with the reason, as an unreadable one is. Empty: any host ' +
        'outside gateway.outbound.deny-networks.',
      { check: hostPatternProblem },
    ),
  },
};

/** Outbound lifecycle webhooks (docs/webhooks.md): dispatch, its schedule and retries. */
export const webhookKeys = {
  enabled: flag(
    g('webhooks.enabled'),
    true,
    'Dispatch outbound lifecycle webhooks; false pauses delivery, not emission.',
  ),
  pollIntervalMs: duration(g('webhooks.poll-interval'), '5s', 'Interval of the webhook dispatch pass.', {
    positive: true,
  }),
  baseBackoffMs: duration(
    g('webhooks.base-backoff'),
    '10s',
    'Delay after attempt n is base * 2^(n-1), capped by max-backoff.',
  ),
  maxBackoffMs: duration(
    g('webhooks.max-backoff'),
    '1h',
    'Largest retry delay (at least gateway.webhooks.base-backoff).',
  ),
  maxAttempts: count(
    g('webhooks.max-attempts'),
    5,
    'Attempts, the first included, before a delivery is failed and never retried.',
  ),
  timeoutMs: duration(g('webhooks.timeout'), '10s', 'Connect and read timeout of one delivery attempt.', {
    positive: true,
  }),
  batchSize: count(g('webhooks.batch-size'), 50, 'Deliveries on their way at once, at most one per receiver.'),
};

/** The ledger's pull export and push to audit sinks. */
export const auditExportKeys = {
  enabled: flag(
    g('audit-export.enabled'),
    true,
    'Push the ledger to audit sinks; false pauses push only (the pull export still works).',
  ),
  pollIntervalMs: duration(
    g('audit-export.poll-interval'),
    '30s',
    'Interval at which each enabled sink is offered its next batch.',
    { positive: true },
  ),
  lagMs: duration(
    g('audit-export.lag'),
    '5s',
    'Ledger entries younger than this are withheld from pull and push (commit-settling lag).',
  ),
  batchSize: count(g('audit-export.batch-size'), 500, 'Ledger entries per audit sink batch.'),
  defaultPageSize: count(
    g('audit-export.default-page-size'),
    1000,
    'Default page size of GET /api/v1/audit and the export (at most max-page-size).',
  ),
  maxPageSize: count(
    g('audit-export.max-page-size'),
    10000,
    'Cap on the page size of GET /api/v1/audit and the export.',
  ),
  checkpointIntervalMs: duration(
    g('audit-export.checkpoint-interval'),
    '1m',
    'Interval at which the leader signs the ledger head when it moved (docs/audit.md).',
    { positive: true },
  ),
  signingKey: optionalText(
    g('audit-export.signing-key'),
    'Ed25519 private JWK that signs ledger checkpoints; unset means one is generated into the data ' +
      'directory (replicas must share it: set this).',
    { secret: true },
  ),
};

export const vettingKeys = {
  timeoutMs: duration(g('vetting.timeout'), '30s', 'A connector exceeding it records ERROR, which blocks.', {
    positive: true,
  }),
  maxFileBytes: count(
    g('vetting.max-file-bytes'),
    1048576,
    'Larger files are reported as an informational file-not-scanned finding.',
  ),
  historyMaxBlobs: count(
    g('vetting.history-max-blobs'),
    20000,
    'Most blobs of history a vetting run reads before approval (blobs the snapshot brings that no served ' +
      'commit holds, outside its own tree; scanned for secrets). Beyond it the newest are read and a HIGH ' +
      'history-not-vetted finding says so.',
  ),
  workerMemoryMb: integer(
    g('vetting.worker-memory'),
    2048,
    'Heap limit in MiB of each vetting worker (the threads that read scripts and run the connectors that read the tree alone). ' +
      'A tree that makes a worker run out of it stops that worker, not the gateway: the snapshot is left ' +
      'unvetted (BLOCKED) and vetted again when a gateway starts or on a rerun.',
    { min: 16 },
  ),
  waiverSweepIntervalMs: duration(
    g('vetting.waiver-sweep-interval'),
    '1h',
    'Interval of the sweep that lapses expired waivers.',
    { positive: true },
  ),
  waiverSweepBatchSize: count(g('vetting.waiver-sweep-batch-size'), 200, 'Waivers lapsed per sweep batch.'),
  minimumReleaseAgeMs: duration(
    g('vetting.minimum-release-age'),
    '0s',
    'Cooling-off before a commit can be approved; 0s is no window.',
  ),
  license: {
    allow: list(
      g('vetting.license.allow'),
      [],
      'SPDX ids of allowed licenses; empty: identified licenses are informational.',
    ),
    ban: list(g('vetting.license.ban'), [], 'SPDX ids of banned licenses.'),
  },
  revet: {
    mode: choice(
      g('vetting.revet.mode'),
      revetModes,
      'WARN',
      'Continuous re-vetting: WARN records violations, ENFORCE also revokes the snapshot.',
    ),
    schedule: text(
      g('vetting.revet.schedule'),
      '0 3 * * *',
      'Cron expression (5 or 6 fields, as node-cron reads it) for scheduled re-vetting.',
      { check: cronSchedule },
    ),
  },
  http: {
    url: optionalText(
      g('vetting.http.url'),
      'External scanner the `http` vetting connector POSTs each snapshot to; ' +
        'unset leaves the connector out of the chain.',
      { check: url },
    ),
    timeoutMs: duration(
      g('vetting.http.timeout'),
      '20s',
      'How long the `http` connector waits for the external scanner ' +
        '(gateway.vetting.timeout still bounds the whole connector).',
      { positive: true },
    ),
  },
};

/** Policy rules: how long one evaluation, and one dry run, may take. */
export const policyKeys = {
  evaluationTimeoutMs: duration(
    g('policy.evaluation-timeout'),
    '1s',
    'Longest one evaluation of one policy rule may run (in a policy worker, which is stopped at the limit); ' +
      'a rule that takes longer fails to evaluate, which denies like any evaluation error.',
    { positive: true },
  ),
  dryRunTimeoutMs: duration(
    g('policy.dry-run-timeout'),
    '10s',
    'Longest one policy dry run takes, request to answer: it evaluates until a twentieth of it (at most 0.5 s) is left for the answer; the snapshots it has not reached by then are listed as not evaluated.',
    { positive: true },
  ),
};
