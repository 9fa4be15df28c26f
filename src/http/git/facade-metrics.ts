import type { Metrics } from '../../adapters/system/metrics.ts';

/** What a facade request on a served repository was: the advertisement, a v2 ref list, or a fetch (the pack). */
export type FetchPhase = 'info-refs' | 'ls-refs' | 'upload-pack';
/** served: answered in full; refused: answered with git's own refusal (bad request, not our ref); failed: cut off. */
export type FetchOutcome = 'served' | 'refused' | 'failed';

/**
 * gateway_facade_fetches_total and gateway_facade_bytes_sent_total. Only a repository the caller may fetch is
 * counted (its name is a registered marketplace or the catalog): a miss is a 404 in the HTTP histogram, so no
 * name a client makes up becomes a label.
 */
export function countFetch(
  metrics: Metrics,
  marketplace: string,
  version: 0 | 2,
  phase: FetchPhase,
  outcome: FetchOutcome,
  bytes = 0,
): void {
  metrics.facadeFetches.inc({ marketplace, protocol: `v${version}`, phase, outcome });
  if (bytes > 0) metrics.facadeBytes.inc({ marketplace, phase }, bytes);
}
