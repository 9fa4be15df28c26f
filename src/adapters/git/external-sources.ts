import type { ExternalPlugin } from '../../domain/snapshot/manifest-policy.ts';
import { defaultIngestLimits, UpstreamError, type GitStore, type IngestLimits } from './git-store.ts';

/** One external plugin source after resolution: its plugin tree, or why it could not be read. */
export type ExternalResolution =
  | Readonly<{ name: string; ok: true; commit: string; tree: string }>
  | Readonly<{ name: string; ok: false; reason: string; rootCause: string; nextStep: string }>;

export type ResolveOptions = Readonly<{
  limits?: IngestLimits;
  /** At most this many fetches at once. */
  concurrency?: number;
}>;

/**
 * Resolves every external plugin source of a marketplace into quarantine, one outcome per source in
 * the order given; a source that cannot be read yields an `ok: false` outcome and never fails the rest.
 * (First version: one fetch per source, in sequence.)
 */
export async function resolveExternalSources(
  store: GitStore,
  marketplaceId: number,
  externals: readonly ExternalPlugin[],
  options: ResolveOptions = {},
): Promise<ExternalResolution[]> {
  const outcomes: ExternalResolution[] = [];
  for (const external of externals) {
    try {
      const { commit, tree } = await store.fetchExternal(
        marketplaceId,
        external,
        options.limits ?? defaultIngestLimits,
      );
      outcomes.push({ name: external.name, ok: true, commit, tree });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      const { reason, rootCause, nextStep } = error;
      outcomes.push({ name: external.name, ok: false, reason, rootCause, nextStep });
    }
  }
  return outcomes;
}
