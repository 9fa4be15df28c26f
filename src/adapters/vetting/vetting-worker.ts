// A vetting worker: does the CPU-bound part of vetting off the event loop for vetting-pool.ts, one task
// at a time: reading a batch of a plugin's scripts (parses and analysis, the grammars loaded once per
// worker), or running the connectors that read the tree alone (worker-scanners.ts) over a tree, each
// connector's report sent as soon as it is made.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { scriptAnalyser, type Analysis } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScanFile, ScanInput, ScanReport } from '../../domain/vetting/findings.ts';
import { treeScannerNamed } from './worker-scanners.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';

/** One script to read: the file (with its text) and the root of the plugin it is read for. */
export type ScriptJob = Readonly<{ file: ScanFile & { text: string }; root: string }>;
/**
 * The tree a scan task is for: its settings, and a port its files arrive on, in parts (a part is an array
 * of files; null ends them), so that copying a large tree never holds the sending thread in one stretch.
 */
export type ShippedInput = Omit<ScanInput, 'byPath' | 'files'> & Readonly<{ files: MessagePort }>;

export type VettingTask =
  /** A batch of scripts, and every path of the tree (a script's invocations are resolved against them). */
  | Readonly<{ kind: 'scripts'; id: number; paths: readonly string[]; jobs: readonly ScriptJob[] }>
  /** The tree scanners `names` over a tree, in that order. */
  | Readonly<{ kind: 'scan'; id: number; names: readonly string[]; input: ShippedInput }>;

/** A connector's report, or why it failed. */
export type ScanOutcome = ScanReport | Readonly<{ error: string }>;

/**
 * A task's result, or why it failed; a scan task's reports one by one, then that it is done; first, once
 * the worker has loaded, that it is ready.
 */
export type VettingAnswer =
  | Readonly<{ id: number; analyses: readonly Analysis[] }>
  | Readonly<{ id: number; scanned: string; outcome: ScanOutcome }>
  | Readonly<{ id: number; done: true }>
  | Readonly<{ id: number; error: string }>
  | Readonly<{ ready: true }>;

const analyse = scriptAnalyser(await loadSyntaxParsers());
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The files that arrive on `port`, until the part that ends them. */
const filesFrom = (port: MessagePort): Promise<ScanFile[]> =>
  new Promise((resolve) => {
    const files: ScanFile[] = [];
    port.on('message', (part: readonly ScanFile[] | null) => {
      if (part !== null) {
        for (const file of part) files.push(file);
        return;
      }
      port.close();
      resolve(files);
    });
  });

async function run(task: VettingTask): Promise<VettingAnswer> {
  if (task.kind === 'scripts') {
    const tree = new Set(task.paths);
    const exists = (path: string) => tree.has(path);
    return { id: task.id, analyses: task.jobs.map(({ file, root }) => analyse(file, root, exists)) };
  }
  const files = await filesFrom(task.input.files);
  const input: ScanInput = { ...task.input, files, byPath: new Map(files.map((f) => [f.path, f])) };
  for (const name of task.names) {
    let outcome: ScanOutcome;
    try {
      const scanner = treeScannerNamed.get(name);
      if (scanner === undefined) throw new Error(`no connector named ${name} runs in a vetting worker`);
      outcome = await scanner.scan(input);
    } catch (error) {
      outcome = { error: messageOf(error) };
    }
    parentPort!.postMessage({ id: task.id, scanned: name, outcome } satisfies VettingAnswer);
  }
  return { id: task.id, done: true };
}

parentPort?.on('message', async (task: VettingTask) => {
  let answer: VettingAnswer;
  try {
    answer = await run(task);
  } catch (error) {
    answer = { id: task.id, error: messageOf(error) };
  }
  parentPort!.postMessage(answer);
});

parentPort?.postMessage({ ready: true } satisfies VettingAnswer);
