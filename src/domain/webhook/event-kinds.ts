// The outbound event kinds (docs/webhooks.md): what a subscriber may name in `events[]`.

export const webhookEventKinds = {
  'marketplace.snapshot.revoked': 'A snapshot was revoked: by a re-vet in ENFORCE mode, or withdrawn by a removal.',
  'marketplace.snapshot.soft_deleted':
    'A held, rejected or revoked snapshot was soft-deleted: by an admin, or by a retention criterion.',
  'marketplace.snapshot.restored': 'A soft-deleted snapshot was restored before its purge.',
  'marketplace.snapshot.captured': 'An ingest or a push captured a new snapshot.',
  'marketplace.snapshot.approved': 'A snapshot was approved and is served.',
  'marketplace.snapshot.rejected': 'A snapshot was rejected.',
  'marketplace.registered': 'A marketplace was registered.',
  'marketplace.removed': 'A marketplace was removed, withdrawing its approved snapshots.',
  'marketplace.ingest_failed': 'An ingest of a marketplace failed.',
  'catalog.rebuilt': 'The aggregated catalog was rebuilt or withdrawn.',
  'audit.batch': 'A batch of ledger entries pushed to an audit sink (sinks only).',
} as const;

export type WebhookEventKind = keyof typeof webhookEventKinds;

/** Kinds only audit sinks receive: a subscriber may not name them. */
export const sinkOnlyKinds: ReadonlySet<string> = new Set(['audit.batch']);

export const isSubscribableKind = (kind: string): boolean =>
  Object.hasOwn(webhookEventKinds, kind) && !sinkOnlyKinds.has(kind);
