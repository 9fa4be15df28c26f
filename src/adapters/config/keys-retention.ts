// gateway.retention.* (docs/retention.md): soft deletion by policy, purge and the housekeeping sweeps;
// gateway.housekeeping.*: whether the housekeeping (compaction) pass is scheduled at all.
import { g } from './key-values.ts';
import { duration, flag } from './key-spec.ts';

export const retentionKeys = {
  enabled: flag(
    g('retention.enabled'),
    false,
    'Run retention passes on a schedule (on-demand passes work regardless).',
  ),
  heldMaxAgeMs: duration(
    g('retention.held-max-age'),
    '90d',
    'Held snapshots older than this are soft-deleted ' + '(held-too-long); zero or negative disables the criterion.',
    { allowNegative: true },
  ),
  supersededEnabled: flag(
    g('retention.superseded'),
    true,
    'Soft-delete held, rejected or revoked snapshots ' + 'superseded by a later approved snapshot.',
  ),
  supersededMinAgeMs: duration(
    g('retention.superseded-min-age'),
    '30d',
    'Superseded snapshots younger than this are kept.',
  ),
  minIdleMs: duration(
    g('retention.min-idle'),
    '30d',
    'Fetch-recency veto: a candidate whose commit was fetched within this window is kept.',
  ),
  restoreWindowMs: duration(
    g('retention.restore-window'),
    '14d',
    'A soft-deleted snapshot can be restored for this long (purgeAfter = deletion + window).',
  ),
  pollIntervalMs: duration(g('retention.poll-interval'), '1h', 'Interval of the retention evaluation pass.', {
    positive: true,
  }),
  compactionIntervalMs: duration(
    g('retention.compaction-interval'),
    '6h',
    'Interval of the compaction pass (purges, sweeps).',
    { positive: true },
  ),
  stagingRefMaxAgeMs: duration(
    g('retention.staging-ref-max-age'),
    '24h',
    'Abandoned staging refs observed longer ' + 'than this are removed; zero or negative disables the sweep.',
    { allowNegative: true },
  ),
};

export const housekeepingKeys = {
  enabled: flag(
    g('housekeeping.enabled'),
    true,
    'Run the compaction pass (purges past the restore window, staging-ref and delivery sweeps) every ' +
      'gateway.retention.compaction-interval, whatever gateway.retention.enabled says (on-demand passes work regardless).',
  ),
  externalCacheMaxAgeMs: duration(
    g('housekeeping.external-cache-max-age'),
    '7d',
    'Compaction removes the cache of an external plugin repository that no live snapshot names once it has ' +
      'not been used for this long; zero or negative keeps every cache.',
    { allowNegative: true },
  ),
};
