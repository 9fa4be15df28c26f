// Reading a snapshot's tree facts (tree-facts.ts): a small tree on the calling thread, a large one in a
// vetting worker, which reads it from git itself, so that the event loop never holds it (vetting-pool.ts).
import { listTree, readScanInput } from '../git/tree-reader.ts';
import type { ScanInput } from '../../domain/kernel/findings.ts';
import { treeFactsOf, type TreeFacts } from './tree-facts.ts';
import { treeFactsInWorker } from './vetting-pool.ts';

/** Bytes of files to read under which a tree's facts are read on the calling thread (milliseconds of work). */
const inlineBytes = 1024 * 1024;

/** The facts of the tree of `sha` in `repo`, read as the vetting reads it (`settings`). */
export async function readTreeFacts(
  repo: string,
  sha: string,
  settings: Omit<ScanInput, 'files' | 'byPath'>,
): Promise<TreeFacts> {
  const bytes = (await listTree(repo, sha))
    .filter((entry) => entry.type === 'blob' && (entry.size ?? 0) <= settings.maxFileBytes)
    .reduce((sum, entry) => sum + (entry.size ?? 0), 0);
  if (bytes < inlineBytes) return treeFactsOf(await readScanInput(repo, sha, settings));
  return treeFactsInWorker(repo, sha, settings);
}
