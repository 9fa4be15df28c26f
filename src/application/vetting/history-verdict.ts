// The vetting report's account of history (decision 334): before a snapshot is approved, the objects
// approval would newly expose as history (blobs its commit reaches and no served commit does, outside its
// own tree) are read and given to the secrets connector. It is not a chain connector (it reads history,
// not the pinned tree); the run appends it as a verdict of its own, so it can be neither disabled nor
// reordered. A secret found there blocks approval like one in the tree, at `<path>@<commit>:<line>`.
import { readNewHistory } from '../../adapters/git/history-reader.ts';
import { runChain, type DraftVerdict } from '../../adapters/vetting/chain.ts';
import type { Finding } from '../../domain/kernel/findings.ts';
import { stateOf } from '../../domain/kernel/findings.ts';
import type { SnapshotRecord } from '../../projections/snapshots/snapshots.queries.ts';
import type { Ports } from '../kernel/ports.ts';

type HistoryPorts = Pick<Ports, 'gitStore' | 'vetting' | 'logger'>;

/** The name the verdict carries in a run (after the chain's connectors). */
export const historyVerdictName = 'history';

/** The connector that reads history blobs (the one that finds credentials left in old commits). */
const historyConnector = 'secrets';

/** The HIGH finding when history is larger than gateway.vetting.history-max-blobs allows to read. */
function boundFinding(sha: string, found: number, unread: number): Finding {
  return {
    id: 'history-not-vetted',
    severity: 'HIGH',
    location: `history@${sha}:1`,
    message:
      `approving this snapshot would expose ${found} blobs and commit messages of history no served commit ` +
      `holds; the oldest ${unread} were not scanned (gateway.vetting.history-max-blobs, or 256 MiB of content). ` +
      'Serve vetted history instead (gateway.facade.history: vetted), raise the bound, or waive after ' +
      'reviewing the history.',
  };
}

/**
 * The history verdict of a snapshot that is not approved yet, or null when there is nothing to say: a
 * snapshot already approved (what it exposes has been served), or history that brings nothing beyond the
 * snapshot's own commit and tree, in whose message nothing was found.
 */
export async function historyVerdict(
  deps: HistoryPorts,
  snapshot: SnapshotRecord,
  marketplace: Readonly<{ id: number; name: string }>,
  position: number,
  log: HistoryPorts['logger'],
): Promise<DraftVerdict | null> {
  if (snapshot.state === 'approved') return null;
  const connector = deps.vetting.connectors.find((c) => c.name === historyConnector);
  if (!connector) return null;
  const started = performance.now();
  const served = [...(await deps.gitStore.refs(deps.gitStore.publishedPath(marketplace.id))).values()];
  const { maxFileBytes, license, historyMaxBlobs, timeoutMs } = deps.vetting;
  const history = await readNewHistory(deps.gitStore.quarantinePath(marketplace.id), snapshot.sha, served, {
    maxBlobs: historyMaxBlobs,
    maxFileBytes,
    timeoutMs,
  });
  log.info(
    { commits: history.commits, blobs: history.blobs, unread: history.unread },
    'history approval would expose read',
  );
  if (history.blobs === 0 && history.commits === 0) return null;
  const files = history.files;
  const input = { files, byPath: new Map(files.map((file) => [file.path, file])), maxFileBytes, license };
  const subject = { snapshotId: snapshot.id, marketplace: marketplace.name, sha: snapshot.sha };
  const [scanned] = await runChain([connector], input, subject, { mode: 'run-all', timeoutMs });
  const findings = [
    ...(scanned?.findings ?? []),
    ...(history.unread > 0 ? [boundFinding(snapshot.sha, history.blobs + history.commits, history.unread)] : []),
  ];
  const failed = scanned?.state === 'ERROR';
  // Nothing beyond the snapshot's own commit and tree, and nothing found there: no verdict to add.
  if (!failed && findings.length === 0 && history.blobs === 0 && history.commits <= 1) return null;
  const scannedCount = history.blobs + history.commits - history.unread;
  const read = `${scannedCount} blobs and messages of ${history.commits} commits not yet served`;
  return {
    connector: historyVerdictName,
    position,
    state: failed ? 'ERROR' : stateOf(findings),
    detail: failed ? `${read}: ${scanned?.detail ?? 'scan failed'}` : `${read} scanned for secrets`,
    reportUrl: null,
    findings,
    elapsedMs: performance.now() - started,
  };
}
