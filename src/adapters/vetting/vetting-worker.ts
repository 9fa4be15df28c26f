// A vetting worker: does the CPU-bound part of vetting off the event loop for vetting-pool.ts, one task
// at a time: reading a batch of a plugin's scripts (parses and analysis, the grammars loaded once per
// worker); running the connectors that read the tree alone (worker-scanners.ts) over a tree, each
// connector's report sent as soon as it is made, after saying which scripts the hooks connector must
// have read; the hooks connector's walk over a tree this worker keeps, with those readings; or reading a
// snapshot's tree from git for the facts the policy variables need (tree-facts.ts).
import { parentPort, type MessagePort } from 'node:worker_threads';
import {
  readAhead,
  scriptAnalyser,
  type Analysis,
  type ScriptPlace,
  type ScriptReading,
} from '../../domain/vetting/connectors/hooks-analysis.ts';
import { scriptsToRead } from '../../domain/vetting/connectors/hooks-scripts.ts';
import { hooksScanner } from '../../domain/vetting/connectors/hooks.connector.ts';
import type { ScanFile, ScanInput, ScanReport } from '../../domain/kernel/findings.ts';
import { layoutOf } from '../../domain/plugin/layout.ts';
import { readScanInput } from '../git/tree-reader.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';
import { treeFactsOf, type TreeFacts } from './tree-facts.ts';
import { treeScannerNamed } from './worker-scanners.ts';

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
  /**
   * The tree scanners `names` over a tree, in that order. With `keep`, the worker first says which scripts
   * the hooks connector must have read, and keeps the tree for the walk until it is forgotten.
   */
  | Readonly<{ kind: 'scan'; id: number; names: readonly string[]; input: ShippedInput; keep: number | null }>
  /** The facts of the tree of `sha` in `repo` (tree-facts.ts), read by this worker from git. */
  | Readonly<{ kind: 'facts'; id: number; repo: string; sha: string; settings: Omit<ScanInput, 'files' | 'byPath'> }>
  /** The hooks connector over the tree kept under `tree`, with the readings of the scripts it named. */
  | Readonly<{ kind: 'walk'; id: number; tree: number; places: readonly ScriptPlace[]; analyses: readonly Analysis[] }>;

/** A kept tree is no longer needed (sent at any time, between tasks or during one). */
export type Forget = Readonly<{ forget: number }>;

/** A connector's report, or why it failed. */
export type ScanOutcome = ScanReport | Readonly<{ error: string }>;

/**
 * A task's result, or why it failed; a scan task's scripts to read and its reports one by one, then that
 * it is done; first, once the worker has loaded, that it is ready.
 */
export type VettingAnswer =
  | Readonly<{ id: number; analyses: readonly Analysis[] }>
  | Readonly<{ id: number; places: readonly ScriptPlace[] }>
  | Readonly<{ id: number; scanned: string; outcome: ScanOutcome }>
  | Readonly<{ id: number; done: true }>
  | Readonly<{ id: number; report: ScanReport }>
  | Readonly<{ id: number; facts: TreeFacts }>
  | Readonly<{ id: number; error: string }>
  | Readonly<{ ready: true }>;

const parsers = await loadSyntaxParsers();
const reading: ScriptReading = { analyse: scriptAnalyser(parsers), parse: parsers.bash };
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const kept = new Map<number, ScanInput>();
const send = (answer: VettingAnswer) => parentPort!.postMessage(answer);

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

async function scan(task: Extract<VettingTask, { kind: 'scan' }>): Promise<VettingAnswer> {
  const files = await filesFrom(task.input.files);
  const input: ScanInput = { ...task.input, files, byPath: new Map(files.map((f) => [f.path, f])) };
  if (task.keep !== null) {
    kept.set(task.keep, input);
    const places = scriptsToRead(input, layoutOf(input)).map(({ file, root }) => ({ path: file.path, root }));
    send({ id: task.id, places });
  }
  for (const name of task.names) {
    let outcome: ScanOutcome;
    try {
      const scanner = treeScannerNamed.get(name);
      if (scanner === undefined) throw new Error(`no connector named ${name} runs in a vetting worker`);
      outcome = await scanner.scan(input);
    } catch (error) {
      outcome = { error: messageOf(error) };
    }
    send({ id: task.id, scanned: name, outcome });
  }
  return { id: task.id, done: true };
}

async function run(task: VettingTask): Promise<VettingAnswer> {
  if (task.kind === 'scripts') {
    const tree = new Set(task.paths);
    const exists = (path: string) => tree.has(path);
    return { id: task.id, analyses: task.jobs.map(({ file, root }) => reading.analyse(file, root, exists)) };
  }
  if (task.kind === 'scan') return scan(task);
  if (task.kind === 'facts')
    return { id: task.id, facts: await treeFactsOf(await readScanInput(task.repo, task.sha, task.settings)) };
  const input = kept.get(task.tree);
  if (input === undefined) throw new Error('the tree to walk is no longer kept by this worker');
  kept.delete(task.tree);
  return { id: task.id, report: hooksScanner(readAhead(reading, task.places, task.analyses))(input) };
}

parentPort?.on('message', async (message: VettingTask | Forget) => {
  if ('forget' in message) {
    kept.delete(message.forget);
    return;
  }
  let answer: VettingAnswer;
  try {
    answer = await run(message);
  } catch (error) {
    answer = { id: message.id, error: messageOf(error) };
  }
  send(answer);
});

send({ ready: true });
