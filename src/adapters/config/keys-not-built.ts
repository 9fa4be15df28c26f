// Keys of features that are not built yet: accepted, warned about at startup ("not built yet: the setting
// has no effect"), marked by `gateway config` and in docs/configuration.md.
import { g, notBuilt, url } from './key-values.ts';
import { duration, flag, optionalText } from './key-spec.ts';

/** gateway.storage.object-store.* (the object-store value of gateway.storage.backend). */
export const objectStoreKeys = {
  bucket: optionalText(
    g('storage.object-store.bucket'),
    'Object-store bucket; required when gateway.storage.backend is object-store.',
    notBuilt,
  ),
  region: optionalText(
    g('storage.object-store.region'),
    'Object-store region; required when gateway.storage.backend is object-store.',
    notBuilt,
  ),
  endpoint: optionalText(
    g('storage.object-store.endpoint'),
    'Object-store endpoint URL for S3-compatible services; unset means the provider default.',
    { ...notBuilt, check: url },
  ),
  cacheDir: optionalText(
    g('storage.object-store.cache-dir'),
    'Local cache directory for object-store blobs; unset means no local cache.',
    notBuilt,
  ),
};

export const retentionKeys = {
  enabled: flag(
    g('retention.enabled'),
    false,
    'Run retention passes on a schedule (on-demand passes work regardless).',
    notBuilt,
  ),
  heldMaxAgeMs: duration(
    g('retention.held-max-age'),
    '90d',
    'Held snapshots older than this are soft-deleted ' + '(held-too-long); zero or negative disables the criterion.',
    { ...notBuilt, allowNegative: true },
  ),
  supersededEnabled: flag(
    g('retention.superseded'),
    true,
    'Soft-delete held, rejected or revoked snapshots ' + 'superseded by a later approved snapshot.',
    notBuilt,
  ),
  supersededMinAgeMs: duration(
    g('retention.superseded-min-age'),
    '30d',
    'Superseded snapshots younger than this are kept.',
    notBuilt,
  ),
  minIdleMs: duration(
    g('retention.min-idle'),
    '30d',
    'Fetch-recency veto: a candidate whose commit was fetched within this window is kept.',
    notBuilt,
  ),
  restoreWindowMs: duration(
    g('retention.restore-window'),
    '14d',
    'A soft-deleted snapshot can be restored for this long (purgeAfter = deletion + window).',
    notBuilt,
  ),
  pollIntervalMs: duration(g('retention.poll-interval'), '1h', 'Interval of the retention evaluation pass.', {
    ...notBuilt,
    positive: true,
  }),
  compactionIntervalMs: duration(
    g('retention.compaction-interval'),
    '6h',
    'Interval of the compaction pass (purges, sweeps).',
    { ...notBuilt, positive: true },
  ),
  stagingRefMaxAgeMs: duration(
    g('retention.staging-ref-max-age'),
    '24h',
    'Abandoned staging refs observed longer ' + 'than this are removed; zero or negative disables the sweep.',
    { ...notBuilt, allowNegative: true },
  ),
};

/** The declarative estate and the forge mirror. */
export const estateKeys = {
  estate: {
    file: optionalText(
      g('estate.file'),
      'Declarative estate (marketplaces, grants, webhooks, audit sinks) reconciled at startup.',
      notBuilt,
    ),
  },
  mirror: {
    url: optionalText(
      g('mirror.url'),
      'Read-only forge mirror of the published repositories; unset means no mirror.',
      notBuilt,
    ),
    credentials: optionalText(
      g('mirror.credentials'),
      'Credentials for pushing to the mirror (never logged or reported).',
      { ...notBuilt, secret: true },
    ),
  },
};
