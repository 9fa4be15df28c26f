import { resolveExternalSources } from '../../adapters/git/external-sources.ts';
import { UpstreamError } from '../../adapters/git/git-store.ts';
import { gitText } from '../../adapters/git/git-process.ts';
import { pruneQuarantine } from '../../adapters/git/quarantine-refs.ts';
import type { ReportProgress } from '../../domain/marketplace/ingest-progress.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { canonicalUrl, registrationRefusal } from '../../domain/marketplace/trust-boundary.ts';
import { externalHostRefusal, externalHostsKey } from '../../domain/outbound/external-hosts.ts';
import { selectPlugins, unmatchedPatterns, type LeftOut } from '../../domain/snapshot/selection.ts';
import { leftOutDirectories } from '../../domain/snapshot/curated-tree.ts';
import {
  externalSourcesOverLimit,
  manifestPath,
  readManifest,
  rewriteExternalSources,
  unresolvedSources,
  type ExternalPlugin,
  type ManifestReading,
  type SourceFailure,
  type UnresolvedSource,
} from '../../domain/plugin/manifest-policy.ts';
import type { IngestTrigger } from '../../domain/snapshot/snapshot.events.ts';
import type { MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotById } from '../../projections/snapshots/snapshots.queries.ts';
import { execute } from '../kernel/execute.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject, type Rejected } from '../kernel/rejected.ts';
import { runVetting, type VettingPorts } from '../vetting/run-vetting.ts';
import { servedCommitFor } from '../facade/served-commit.ts';

const readModels = ['marketplaces', 'snapshots', 'ledger'];

/** What an ingestion uses: git, the registry, the trust boundary's schemes, and vetting of what it captures. */
export type IngestPorts = VettingPorts & Pick<Ports, 'marketplaces' | 'quarantineLocks'>;

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
 *
 * From the first object written until the capture is recorded (and the snapshots read model has it),
 * the quarantine's lock is held shared: compaction prunes a repository only holding it exclusively, so
 * neither objects no ref reaches yet nor pins the capture relies on (an upstream commit or external tree
 * pinned before, by a snapshot being purged) go from under it. Vetting reads a recorded, live snapshot.
 * `report` is told each step and its counts as the ingest goes (ingest-registry.ts keeps them).
 */
export async function ingest(
  deps: IngestPorts,
  marketplace: MarketplaceRecord,
  trigger: IngestTrigger,
  meta: CommandMeta,
  pushedTip?: string,
  report: ReportProgress = () => {},
): Promise<IngestOutcome> {
  // gateway_ingest_duration_seconds: the whole ingestion, vetting at ingestion included.
  const end = deps.metrics.ingest.startTimer({ trigger });
  try {
    const outcome = await captureAndVet(deps, marketplace, trigger, meta, pushedTip, report);
    end({ outcome: outcome.created ? 'captured' : 'unchanged' });
    return outcome;
  } catch (error) {
    end({ outcome: 'failed' });
    throw error;
  }
}

async function captureAndVet(
  deps: IngestPorts,
  marketplace: MarketplaceRecord,
  trigger: IngestTrigger,
  meta: CommandMeta,
  pushedTip: string | undefined,
  report: ReportProgress,
): Promise<IngestOutcome> {
  const fetch = { refused: false };
  let outcome: IngestOutcome;
  try {
    outcome = await deps.quarantineLocks.shared(marketplace.id, () =>
      capture(deps, marketplace, trigger, meta, { pushedTip, report, refused: () => (fetch.refused = true) }),
    );
  } finally {
    if (fetch.refused) await pruneRefusedFetch(deps, marketplace.id);
  }
  await deps.gitStore.quarantineChanged(marketplace.id);
  report({ type: 'captured', snapshotId: outcome.snapshotId });
  if (outcome.created) await vetAtIngestion(deps, outcome.snapshotId, marketplace, meta, report);
  return outcome;
}

/**
 * What an upstream fetch refused as too large brought is unreachable (its staging ref is gone): pruned
 * at once if no other ingest of the marketplace is writing (the exclusive lock), else by compaction.
 */
async function pruneRefusedFetch(deps: Pick<Ports, 'gitStore' | 'quarantineLocks' | 'logger'>, marketplaceId: number) {
  const repo = deps.gitStore.quarantinePath(marketplaceId);
  const pruned = await deps.quarantineLocks
    .tryExclusive(marketplaceId, () => pruneQuarantine(repo))
    .catch((error: unknown) => deps.logger.warn({ err: error, marketplaceId }, 'pruning a refused fetch failed'));
  if (pruned && !pruned.acquired)
    deps.logger.info({ marketplaceId }, 'quarantine busy: a refused fetch is left for compaction to prune');
}

/** The capture under the quarantine's shared lock: `refused` is told when a fetch was refused as too large. */
async function capture(
  deps: IngestPorts,
  marketplace: MarketplaceRecord,
  trigger: IngestTrigger,
  meta: CommandMeta,
  { pushedTip, report, refused }: { pushedTip: string | undefined; report: ReportProgress; refused: () => unknown },
): Promise<IngestOutcome> {
  const stream = streams.marketplace(marketplace.id);
  let upstreamSha = '';
  let sha: string;
  let manifest: ManifestReading;
  let unresolved: readonly UnresolvedSource[] = [];
  let leftOut: readonly LeftOut[] = [];
  const repo = deps.gitStore.quarantinePath(marketplace.id);
  try {
    report({ type: 'phase', phase: 'fetch' });
    upstreamSha = pushedTip ?? (await fetchTip(deps, marketplace));
    const manifestBytes = await deps.gitStore.readFile(repo, upstreamSha, manifestPath, 1024 * 1024);
    manifest = readManifest(manifestBytes === null ? null : manifestBytes.toString('utf8'));
    ({ sha, unresolved, leftOut } = manifest.ok
      ? await compose(deps, marketplace, upstreamSha, manifest, report)
      : { sha: upstreamSha, unresolved, leftOut });
  } catch (error) {
    if (error instanceof ManifestViolation) {
      manifest = { ok: false, violation: error.message };
      sha = upstreamSha;
    } else {
      if (error instanceof UpstreamError && error.reason === 'upstream too large') refused();
      throw await recordFailure(deps, marketplace, error, trigger, meta);
    }
  }
  report({ type: 'phase', phase: 'capture' });
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
        unresolved,
        leftOut,
      },
      meta,
    },
    readModels,
  );
  const outcome = decision.events.find((e) => e.type === 'ingest-succeeded');
  if (outcome?.type !== 'ingest-succeeded') throw new Error('ingest decided without an outcome');
  return { snapshotId: outcome.data.snapshotId, created: outcome.data.created };
}

/** A failed attempt is recorded (reason, root cause, next step) and answered 502 `ingest-failed`. */
async function recordFailure(
  deps: IngestPorts,
  marketplace: MarketplaceRecord,
  error: unknown,
  trigger: IngestTrigger,
  meta: CommandMeta,
): Promise<Rejected> {
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
  const { reason, rootCause, nextStep } = failure;
  await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(marketplace.id),
    { type: 'record-ingest-failure', data: { reason, rootCause, nextStep, trigger }, meta },
    readModels,
  );
  return reject('ingest-failed', `${reason}: ${rootCause}`, { reason, rootCause, nextStep });
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
  report: ReportProgress,
): Promise<void> {
  const snapshot = await snapshotById(deps.pool, snapshotId);
  if (!snapshot) return;
  try {
    await runVetting(deps, snapshot, marketplace, 'ingestion', meta, report);
  } catch (error) {
    deps.logger.error(
      { err: error, snapshotId, marketplace: marketplace.name },
      'vetting at ingestion failed; the snapshot stays unvetted (BLOCKED) until its vetting is run again',
    );
  }
}

/** A problem with what the manifest asks for (not with reaching it): the snapshot is captured as rejected. */
class ManifestViolation extends Error {}

type Resolved = Readonly<{ sha: string; unresolved: readonly UnresolvedSource[] }>;
type Composed = Resolved & Readonly<{ leftOut: readonly LeftOut[] }>;
type IngestManifest = ManifestReading & { ok: true };

/**
 * What the snapshot serves (docs/marketplaces.md, Selection): the plugins the marketplace's selection keeps, and
 * only those are resolved, vetted (the vetting reads the served tree), composed and served. A left-out
 * local plugin's directory leaves the served tree and its entry the manifest; a left-out external
 * source is never fetched. With nothing left out and no external source, the upstream commit is served.
 */
async function compose(
  deps: Pick<Ports, 'gitStore' | 'marketplaces' | 'logger' | 'pool'>,
  marketplace: MarketplaceRecord,
  upstreamSha: string,
  manifest: IngestManifest,
  report: ReportProgress,
): Promise<Composed> {
  const names = [...manifest.plugins, ...manifest.externals].map((plugin) => plugin.name);
  const { selected, leftOut } = selectPlugins(names, marketplace.selection);
  const unmatched = unmatchedPatterns(names, marketplace.selection);
  // A misspelt pattern selects nothing silently: the operator reads it here.
  if (unmatched.include.length + unmatched.exclude.length > 0)
    deps.logger.warn({ marketplace: marketplace.name, ...unmatched }, 'selection patterns match no plugin upstream');
  if (leftOut.length === 0)
    return { ...(await resolveExternals(deps, marketplace.id, upstreamSha, manifest, report)), leftOut };
  const chosen = new Set(selected);
  const curated: IngestManifest = {
    ...manifest,
    plugins: manifest.plugins.filter((plugin) => chosen.has(plugin.name)),
    externals: manifest.externals.filter((external) => chosen.has(external.name)),
  };
  const dropped = { plugins: leftOut.map((l) => l.plugin), directories: leftOutDirectories(manifest.plugins, chosen) };
  return { ...(await resolveExternals(deps, marketplace.id, upstreamSha, curated, report, dropped)), leftOut };
}

/** What the selection drops from the served tree: manifest entries and the directories of local plugins. */
type Dropped = Readonly<{ plugins: readonly string[]; directories: readonly string[] }>;

/**
 * The sources inside the trust boundary (the same as a registration's: allowed schemes only, no
 * credentials in the URL) and on a host of gateway.ingest.external-hosts when it lists any (decision
 * 342), canonical; the others are refused with the reason.
 */
function withinTrustBoundary(
  externals: readonly ExternalPlugin[],
  allowedUrlSchemes: readonly string[],
  externalHosts: readonly string[],
) {
  const inside: ExternalPlugin[] = [];
  const refused: Array<SourceFailure & { detail: string }> = [];
  for (const external of externals) {
    const offList = externalHostRefusal(external.url, externalHosts);
    if (offList !== null) {
      refused.push({
        plugin: external.name,
        detail: offList,
        reason: offList,
        nextStep: `point the plugin at a listed host, or ask the operator to add this one to ${externalHostsKey}`,
      });
      continue;
    }
    const refusal = registrationRefusal(
      { origin: 'upstream', url: external.url, ref: null, pushPolicy: null },
      allowedUrlSchemes,
    );
    if (refusal === null) inside.push({ ...external, url: canonicalUrl(external.url) });
    else
      refused.push({
        plugin: external.name,
        detail: refusal.detail,
        reason: `external plugin source of '${external.name}' outside the trust boundary: ${refusal.detail}`,
        nextStep:
          'point the plugin at an http(s) git URL without credentials, or allow its scheme (gateway.allowed-url-schemes)',
      });
  }
  return { inside, refused };
}

/**
 * External plugin sources are fetched and resolved into a composite commit, so the served tree is
 * self-contained; its parent is the commit served now, never the upstream commit (application/facade/served-commit.ts).
 * Without externals and left-out plugins the upstream commit is served in history mode `upstream`.
 * Under gateway.ingest.external-sources `withhold-unresolved` (the default) a source that
 * cannot be read (unreachable, missing commit, over a limit, no such directory, outside the trust
 * boundary) withholds its plugin: the composite's manifest leaves it out and the capture records it.
 * Under `require-all` a source outside the trust boundary rejects the snapshot and an unreadable one
 * fails the ingest, as before.
 */
async function resolveExternals(
  deps: Pick<Ports, 'gitStore' | 'marketplaces' | 'pool'>,
  marketplaceId: number,
  upstreamSha: string,
  manifest: IngestManifest,
  report: ReportProgress,
  dropped: Dropped = { plugins: [], directories: [] },
): Promise<Resolved> {
  const settings = deps.marketplaces.ingest;
  const externals = manifest.externals;
  if (externals.length === 0 && dropped.plugins.length === 0) {
    report({ type: 'phase', phase: 'compose' });
    const content = { upstream: upstreamSha, externals: [], manifest: null, leaveOut: [] };
    return { sha: await servedCommitFor(deps, marketplaceId, content), unresolved: [] };
  }
  const overLimit = externalSourcesOverLimit(externals.length, settings.maxExternalSources);
  if (overLimit !== null) throw new ManifestViolation(overLimit);
  const strict = settings.externalSources === 'require-all';
  const { inside, refused } = withinTrustBoundary(
    externals,
    deps.marketplaces.allowedUrlSchemes,
    settings.externalHosts,
  );
  if (strict && refused[0]) throw new ManifestViolation(`plugin '${refused[0].plugin}': ${refused[0].detail}`);
  // Refused sources have their outcome already: they count as done.
  const resolved = (done: number) =>
    report({ type: 'externals', done: refused.length + done, total: externals.length });
  resolved(0);
  const outcomes = await resolveExternalSources(deps.gitStore, marketplaceId, inside, {
    concurrency: settings.fetchConcurrency,
    onProgress: resolved,
  });
  const failures: SourceFailure[] = refused.map(({ plugin, reason, nextStep }) => ({ plugin, reason, nextStep }));
  const trees: Array<{ name: string; tree: string }> = [];
  for (const outcome of outcomes) {
    if (outcome.ok) trees.push({ name: outcome.name, tree: outcome.tree });
    else if (strict) throw new UpstreamError(outcome.reason, outcome.rootCause, outcome.nextStep);
    else
      failures.push({
        plugin: outcome.name,
        reason: `${outcome.reason}: ${outcome.rootCause}`,
        nextStep: outcome.nextStep,
      });
  }
  const unresolved = unresolvedSources(manifest.text, failures);
  const withheld = unresolved.map((u) => u.plugin);
  report({ type: 'phase', phase: 'compose' });
  const sha = await servedCommitFor(deps, marketplaceId, {
    upstream: upstreamSha,
    externals: trees,
    manifest: rewriteExternalSources(manifest.text, trees, [...withheld, ...dropped.plugins]),
    leaveOut: dropped.directories,
  });
  return { sha, unresolved };
}
