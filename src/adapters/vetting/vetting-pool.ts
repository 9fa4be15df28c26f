// The CPU-bound part of vetting runs in worker threads: reading a plugin's scripts (tree-sitter parses and
// a data-flow analysis) and the connectors that read the tree alone (worker-scanners.ts), so that neither holds the event loop that
// serves the facade, the API and the portal, nor waits for one core. The pool belongs to the process:
// one worker per core (at most four), started on the first task, each running one task at a time; a
// stopped worker is replaced on the next task, and an idle one does not keep the process alive. Each
// worker's heap is limited (gateway.vetting.worker-memory): a tree that makes a worker run out of memory
// stops that worker, not the gateway.
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Analysis } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScanFile, ScanInput } from '../../domain/vetting/findings.ts';
import { VettingInterrupted } from './connector.ts';
import type { ScanOutcome, ScriptJob, VettingAnswer, VettingTask } from './vetting-worker.ts';

export type { ScanOutcome, ScriptJob } from './vetting-worker.ts';

/** A scripts task's analyses; null for a scan task, whose reports came one by one (`onReport`). */
type Result = readonly Analysis[] | null;
type OnReport = (name: string, outcome: ScanOutcome) => void;
type Pending = Readonly<{ task: VettingTask; settle: (answer: Result | Error) => void; onReport?: OnReport }>;
/** A worker, the heap limit it was started with, and the task it runs. */
type Slot = { worker: Worker | null; heapMb: number | undefined; running: Pending | null };

const size = Math.max(1, Math.min(4, availableParallelism()));
const slots: Slot[] = Array.from({ length: size }, (): Slot => ({ worker: null, heapMb: undefined, running: null }));
const queue: Pending[] = [];
let nextId = 1;
let heapMb: number | undefined;

/** The heap limit of the workers (MiB; undefined: V8's default); a worker started with another is replaced. */
export function configureVettingPool(settings: Readonly<{ workerMemoryMb?: number | undefined }>): void {
  heapMb = settings.workerMemoryMb;
}

/** Ends an idle worker started with a heap limit no longer in force. */
function retire(slot: Slot): void {
  if (slot.worker === null || slot.heapMb === heapMb) return;
  const worker = slot.worker;
  slot.worker = null;
  worker.removeAllListeners();
  worker.on('error', () => {});
  void worker.terminate();
}

// Under tsx (development, tests) the worker is the TypeScript file; built, the JavaScript next to this one.
const workerUrl = new URL(
  import.meta.url.endsWith('.ts') ? './vetting-worker.ts' : './vetting-worker.js',
  import.meta.url,
);

function finish(slot: Slot, answer: Result | Error): void {
  const running = slot.running;
  if (running === null) return;
  slot.running = null;
  slot.worker?.unref(); // an idle worker does not keep the process alive; a busy one does
  running.settle(answer);
  pump();
}

/** Stops a slot's worker (the next task starts a new one) and fails what it was running with `error`. */
function stop(slot: Slot, error: Error): void {
  const worker = slot.worker;
  slot.worker = null;
  if (worker !== null) {
    worker.removeAllListeners();
    worker.on('error', () => {}); // an error while terminating has no one left to tell
    void worker.terminate();
  }
  finish(slot, error);
}

/** A worker that failed or stopped on its own: the vetting it was doing cannot be judged. */
const crashed = (why: string) => new VettingInterrupted(`a vetting worker ${why}`);

function start(slot: Slot): Worker {
  slot.heapMb = heapMb;
  const worker = new Worker(workerUrl, heapMb ? { resourceLimits: { maxOldGenerationSizeMb: heapMb } } : {});
  const loading = setTimeout(() => stop(slot, crashed('did not start within 30 s')), 30_000);
  loading.unref();
  worker.on('message', (answer: VettingAnswer) => {
    if ('ready' in answer) clearTimeout(loading);
    else if (slot.running?.task.id !== answer.id) return;
    else if ('scanned' in answer) slot.running.onReport?.(answer.scanned, answer.outcome);
    else finish(slot, 'error' in answer ? new Error(answer.error) : 'analyses' in answer ? answer.analyses : null);
  });
  worker.on('error', (error) => stop(slot, crashed(`failed: ${error.message}`)));
  worker.on('exit', (code) => {
    if (slot.worker === worker) stop(slot, crashed(`stopped (exit code ${code})`));
  });
  return worker;
}

function pump(): void {
  for (const slot of slots) {
    if (slot.running !== null || queue.length === 0) continue;
    const pending = queue.shift()!;
    retire(slot);
    const worker = (slot.worker ??= start(slot));
    worker.ref();
    slot.running = pending;
    worker.postMessage(pending.task, pending.task.kind === 'scan' ? [pending.task.input.files] : []);
  }
}

/** The reason to abort a task with when its result is no longer wanted (not that it must stop). */
export const givenUp: unique symbol = Symbol('given up');

/**
 * Runs tasks in the pool and gives their results in order. Rejects when one fails or `signal` aborts:
 * the waiting tasks leave the queue, the running ones stop their workers, unless the reason is givenUp
 * (the running ones then finish unread, which costs less than starting new workers).
 */
async function runTasks<T extends Result>(
  tasks: readonly VettingTask[],
  signal?: AbortSignal,
  onReport?: OnReport,
): Promise<T[]> {
  const pendings: Pending[] = [];
  const answers = tasks.map(
    (task) =>
      new Promise<T>((resolve, reject) => {
        const pending: Pending = {
          task,
          settle: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer as T)),
          ...(onReport ? { onReport } : {}),
        };
        pendings.push(pending);
        queue.push(pending);
      }),
  );
  const cancel = () => {
    for (const pending of pendings) {
      const waiting = queue.indexOf(pending);
      if (waiting !== -1) {
        queue.splice(waiting, 1);
        pending.settle(new Error('the vetting work was cancelled'));
      }
      const slot = slots.find((s) => s.running === pending);
      if (slot && signal?.reason !== givenUp) stop(slot, new Error('the vetting work was cancelled'));
    }
  };
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  pump();
  try {
    // Every task settles (a failure is not left running behind the first rejection).
    const settled = await Promise.allSettled(answers);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/** Jobs in consecutive batches of about equal text, `count` of them at most. */
function batches(jobs: readonly ScriptJob[], count: number): ScriptJob[][] {
  const total = jobs.reduce((sum, job) => sum + job.file.text.length, 0);
  const share = total / count;
  const out: ScriptJob[][] = [[]];
  let filled = 0;
  for (const job of jobs) {
    if (filled >= share && out.length < count) {
      out.push([]);
      filled = 0;
    }
    out[out.length - 1]!.push(job);
    filled += job.file.text.length;
  }
  return out.filter((batch) => batch.length > 0);
}

/**
 * Reads scripts in the workers, in batches of about equal text (three per worker, so that the workers
 * finish together), and gives their analyses in the order of `jobs`. `paths` are the tree's files.
 */
export async function analyseInWorkers(
  jobs: readonly ScriptJob[],
  paths: readonly string[],
  signal?: AbortSignal,
): Promise<Analysis[]> {
  if (jobs.length === 0) return [];
  const tasks = batches(jobs, size * 3).map((part): VettingTask => ({
    kind: 'scripts',
    id: nextId++,
    paths,
    jobs: part,
  }));
  return (await runTasks<readonly Analysis[]>(tasks, signal)).flat();
}

/** Files per part a tree is shipped in, and the event loop runs between parts. */
const partSize = 500;

/** Sends the files on `port` in parts, letting other work run between them, then the end. */
async function ship(port: MessagePort, files: readonly ScanFile[]): Promise<void> {
  try {
    for (let start = 0; start < files.length; start += partSize) {
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      port.postMessage(files.slice(start, start + partSize));
    }
    port.postMessage(null);
  } finally {
    port.close();
  }
}

/**
 * Runs the tree scanners `names` over a tree in one worker, in that order; `onReport` is given each one's
 * report, or why it failed, as soon as it is made. Settles when the last has been given.
 */
export async function scanInWorker(
  input: ScanInput,
  names: readonly string[],
  onReport: OnReport,
  signal?: AbortSignal,
): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  const { maxFileBytes, license } = input;
  const task: VettingTask = { kind: 'scan', id: nextId++, names, input: { files: port2, maxFileBytes, license } };
  const done = runTasks<null>([task], signal, onReport);
  done.catch(() => {}); // awaited below, once the files are on their way
  await ship(port1, input.files);
  await done;
}
