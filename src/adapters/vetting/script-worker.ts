// A script worker: parses and analyses a plugin's scripts off the event loop for script-pool.ts, one
// batch at a time, with the grammars loaded once per worker.
import { parentPort } from 'node:worker_threads';
import { scriptAnalyser, type Analysis, type ScriptAnalyser } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScanFile } from '../../domain/vetting/findings.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';

/** One script to read: the file (with its text) and the root of the plugin it is read for. */
export type ScriptJob = Readonly<{ file: ScanFile & { text: string }; root: string }>;
/** A batch: its scripts, and every path of the tree (a script's invocations are resolved against them). */
export type ScriptTask = Readonly<{ id: number; paths: readonly string[]; jobs: readonly ScriptJob[] }>;
/** A batch's analyses in the order of its jobs, or why it failed; first, once the grammars are loaded, ready. */
export type ScriptAnswer =
  | Readonly<{ id: number; analyses: readonly Analysis[] }>
  | Readonly<{ id: number; error: string }>
  | Readonly<{ ready: true }>;

const analyse: ScriptAnalyser = scriptAnalyser(await loadSyntaxParsers());

parentPort?.on('message', ({ id, paths, jobs }: ScriptTask) => {
  try {
    const tree = new Set(paths);
    const exists = (path: string) => tree.has(path);
    const analyses = jobs.map(({ file, root }) => analyse(file, root, exists));
    parentPort!.postMessage({ id, analyses } satisfies ScriptAnswer);
  } catch (error) {
    parentPort!.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies ScriptAnswer);
  }
});

parentPort?.postMessage({ ready: true } satisfies ScriptAnswer);
