import { UpstreamError } from '../adapters/git/git-store.ts';
import { gitText } from '../adapters/git/git-process.ts';
import { marketplaceDecider } from '../domain/marketplace/marketplace.decider.ts';
import type { CommandMeta } from '../domain/shared/decider.ts';
import { streams } from '../domain/shared/streams.ts';
import { canonicalUrl, registrationRefusal } from '../domain/marketplace/trust-boundary.ts';
import {
  manifestPath,
  readManifest,
  rewriteExternalSources,
  type ManifestReading,
} from '../domain/snapshot/manifest-policy.ts';
import type { IngestTrigger } from '../domain/snapshot/snapshot.events.ts';
import type { MarketplaceRecord } from '../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../projections/snapshots/snapshots.queries.ts';
import { execute } from './execute.ts';
import type { Ports } from './ports.ts';
import { reject } from './rejected.ts';
import { runVetting, type VettingPorts } from './run-vetting.ts';

const readModels = ['marketplaces', 'snapshots', 'ledger'];

/** What an ingestion uses: git, the registry, the trust boundary's schemes, and vetting of what it captures. */
export type IngestPorts = VettingPorts & Pick<Ports, 'marketplaces'>;

export type IngestOutcome = Readonly<{ snapshotId: number; created: boolean }>;

/** The commit to capture: the upstream default branch, or for a hosted marketplace what was pushed to main. */
async function fetchTip(deps: Pick<Ports, 'gitStore'>, marketplace: MarketplaceRecord): Promise<string> {
  if (marketplace.url !== null) return (await deps.gitStore.fetchUpstream(marketplace.id, marketplace.url)).sha;
  const repo = await deps.gitStore.ensureQuarantine(marketplace.id);
  const sha = await gitText(['-C', repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}']).catch(
    () => '',
  );
  if (!sha)
    throw new UpstreamError(
      'nothing published yet',
      'no commit has been pushed to main of this hosted marketplace',
      `push to /publish/${marketplace.name}, then ingest`,
    );
  return sha;
}

/**
 * Ingestion, whatever triggered it: fetch into quarantine and pin, read the manifest, record the
 * capture (a commit captured before creates no second snapshot), and on failure record the attempt
 * with reason, root cause and next step before answering 502. `pushedTip` (a push to a hosted
 * marketplace) names the commit to capture instead of reading main, so every accepted push is captured.
 */
export async function ingest(
  deps: IngestPorts,
  marketplace: MarketplaceRecord,
  trigger: IngestTrigger,
  meta: CommandMeta,
  pushedTip?: string,
): Promise<IngestOutcome> {
  const stream = streams.marketplace(marketplace.id);
  let upstreamSha = '';
  let sha: string;
  let manifest: ManifestReading;
  const repo = deps.gitStore.quarantinePath(marketplace.id);
  try {
    upstreamSha = pushedTip ?? (await fetchTip(deps, marketplace));
    const manifestBytes = await deps.gitStore.readFile(repo, upstreamSha, manifestPath, 1024 * 1024);
    manifest = readManifest(manifestBytes === null ? null : manifestBytes.toString('utf8'));
    sha = manifest.ok ? await resolveExternals(deps, marketplace.id, upstreamSha, manifest) : upstreamSha;
  } catch (error) {
    if (error instanceof ManifestViolation) {
      manifest = { ok: false, violation: error.message };
      sha = upstreamSha;
    } else {
      const failure =
        error instanceof UpstreamError
          ? error
          : new UpstreamError(
              'ingestion failed',
              error instanceof Error ? error.message : String(error),
              'retry; if it persists, see the gateway log',
            );
      deps.logger.warn(
        { marketplace: marketplace.name, reason: failure.reason, rootCause: failure.rootCause },
        'ingest failed',
      );
      await execute(
        deps,
        marketplaceDecider,
        stream,
        {
          type: 'record-ingest-failure',
          data: { reason: failure.reason, rootCause: failure.rootCause, nextStep: failure.nextStep, trigger },
          meta,
        },
        readModels,
      );
      throw reject('ingest-failed', `${failure.reason}: ${failure.rootCause}`, {
        reason: failure.reason,
        rootCause: failure.rootCause,
        nextStep: failure.nextStep,
      });
    }
  }
  const snapshotId = await deps.ids('snapshot');
  const decision = await execute(
    deps,
    marketplaceDecider,
    stream,
    {
      type: 'record-ingest',
      data: {
        snapshotId,
        sha,
        upstreamSha,
        violation: manifest.ok ? null : manifest.violation,
        trigger,
        committedAt: await deps.gitStore.commitTime(repo, upstreamSha),
        description: manifest.ok ? manifest.description : null,
      },
      meta,
    },
    readModels,
  );
  const outcome = decision.events.find((e) => e.type === 'ingest-succeeded');
  if (outcome?.type !== 'ingest-succeeded') throw new Error('ingest decided without an outcome');
  if (outcome.data.created) await vetAtIngestion(deps, outcome.data.snapshotId, marketplace, meta);
  return { snapshotId: outcome.data.snapshotId, created: outcome.data.created };
}

/**
 * A new snapshot is vetted before the ingest answers (trigger `ingestion`). A run that cannot be made
 * (the tree unreadable) leaves the snapshot unvetted, which reports BLOCKED until its vetting is run again (POST /snapshots/{id}/vetting/rerun);
 * the capture itself stands.
 */
async function vetAtIngestion(
  deps: VettingPorts,
  snapshotId: number,
  marketplace: MarketplaceRecord,
  meta: CommandMeta,
): Promise<void> {
  const snapshot = await snapshotById(deps.pool, snapshotId);
  if (!snapshot) return;
  try {
    await runVetting(deps, snapshot, marketplace, 'ingestion', meta);
  } catch (error) {
    deps.logger.error(
      { err: error, snapshotId, marketplace: marketplace.name },
      'vetting at ingestion failed; the snapshot stays unvetted (BLOCKED) until its vetting is run again',
    );
  }
}

/** A problem with what the manifest asks for (not with reaching it): the snapshot is captured as rejected. */
class ManifestViolation extends Error {}

/**
 * External plugin sources are fetched and resolved into a composite commit whose parent is the
 * upstream commit, so the served tree is self-contained; without externals the upstream commit is served.
 */
async function resolveExternals(
  deps: Pick<Ports, 'gitStore' | 'marketplaces'>,
  marketplaceId: number,
  upstreamSha: string,
  manifest: ManifestReading & { ok: true },
): Promise<string> {
  if (manifest.externals.length === 0) return upstreamSha;
  const trees = [];
  for (const external of manifest.externals) {
    // The same trust boundary as a registration: allowed schemes only, no credentials in the URL.
    const refusal = registrationRefusal(
      { origin: 'upstream', url: external.url, ref: null, pushPolicy: null },
      deps.marketplaces.allowedUrlSchemes,
    );
    if (refusal) throw new ManifestViolation(`plugin '${external.name}': ${refusal.detail}`);
    const { tree } = await deps.gitStore.fetchExternal(marketplaceId, { ...external, url: canonicalUrl(external.url) });
    trees.push({ name: external.name, tree });
  }
  return deps.gitStore.composite(
    marketplaceId,
    upstreamSha,
    trees,
    rewriteExternalSources(manifest.text, manifest.externals),
  );
}
