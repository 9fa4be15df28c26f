// The CPU-bound part of vetting runs in worker threads: reading a plugin's scripts (tree-sitter parses and
// a data-flow analysis) and the connectors that read the tree alone (worker-scanners.ts), so that neither holds the event loop that
// serves the facade, the API and the portal, nor waits for one core. The pool belongs to the process:
// one worker per core (at most four), started on the first task, each running one task at a time; a
// stopped worker is replaced on the next task, and an idle one does not keep the process alive. Each
// worker's heap is limited (gateway.vetting.worker-memory): a tree that makes a worker run out of memory
// stops that worker, not the gateway.
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Analysis, ScriptPlace } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScanFile, ScanInput, ScanReport } from '../../domain/kernel/findings.ts';
import { VettingInterrupted } from './connector.ts';
import type { TreeFacts } from './tree-facts.ts';
import type { Forget, ScanOutcome, ScriptJob, VettingAnswer, VettingTask } from './vetting-worker.ts';
import { endWorker, release, workerModule, type WorkerSlot } from '../system/worker-slot.ts';

export type { ScanOutcome, ScriptJob } from './vetting-worker.ts';

/** A scripts task's analyses, a walk's report, a tree's facts; null for a scan task (its answers came one by one). */
type Result = readonly Analysis[] | ScanReport | TreeFacts | null;
/** An answer a task gives before its result (a scan task's scripts to read and reports). */
type Partial = Extract<VettingAnswer, { places: unknown } | { scanned: unknown }>;
type Pending = Readonly<{
  task: VettingTask;
  settle: (answer: Result | Error) => void;
  onPartial?: (answer: Partial) => void;
  /** The worker the task must run on (it keeps the tree the task is about). */
  pin?: Worker;
  /** Told the worker the task runs on as it starts. */
  onStart?: (worker: Worker) => void;
  /** Runs before the tasks already waiting (short work someone waits on, ahead of a tree's vetting). */
  urgent?: boolean;
}>;
/** A worker, the heap limit it was started with, and the task it runs. */
type Slot = WorkerSlot<Pending> & { heapMb: number | undefined };

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
  if (slot.worker !== null && slot.heapMb !== heapMb) endWorker(slot);
}

const workerUrl = workerModule(import.meta.url, 'vetting-worker');

function finish(slot: Slot, answer: Result | Error): void {
  const running = release(slot);
  if (running === null) return;
  running.settle(answer);
  pump();
}

/** Stops a slot's worker (the next task starts a new one) and fails what it was running with `error`. */
function stop(slot: Slot, error: Error): void {
  endWorker(slot);
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
    else if ('scanned' in answer || 'places' in answer) slot.running.onPartial?.(answer);
    else if ('error' in answer) finish(slot, new Error(answer.error));
    else if ('analyses' in answer) finish(slot, answer.analyses);
    else finish(slot, 'report' in answer ? answer.report : 'facts' in answer ? answer.facts : null);
  });
  worker.on('error', (error) => stop(slot, crashed(`failed: ${error.message}`)));
  worker.on('exit', (code) => {
    if (slot.worker === worker) stop(slot, crashed(`stopped (exit code ${code})`));
  });
  return worker;
}

function pump(): void {
  // A task bound to a worker that has stopped cannot run: what that worker kept is gone with it.
  for (const pending of queue.filter((p) => p.pin && !slots.some((slot) => slot.worker === p.pin))) {
    queue.splice(queue.indexOf(pending), 1);
    pending.settle(crashed('stopped before the vetting it kept a tree for was done'));
  }
  for (const slot of slots) {
    if (slot.running !== null) continue;
    const next = queue.findIndex((p) => p.pin === undefined || p.pin === slot.worker);
    if (next === -1) continue;
    const [pending] = queue.splice(next, 1) as [Pending];
    if (pending.pin === undefined) retire(slot);
    const worker = (slot.worker ??= start(slot));
    worker.ref();
    slot.running = pending;
    pending.onStart?.(worker);
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
  requests: ReadonlyArray<Omit<Pending, 'settle'>>,
  signal?: AbortSignal,
): Promise<T[]> {
  const pendings: Pending[] = [];
  const answers = requests.map(
    (request) =>
      new Promise<T>((resolve, reject) => {
        const pending: Pending = {
          ...request,
          settle: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer as T)),
        };
        pendings.push(pending);
        const first = request.urgent ? queue.findIndex((p) => !p.urgent) : -1;
        queue.splice(first === -1 ? queue.length : first, 0, pending);
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
  const tasks = batches(jobs, size * 3).map((part) => ({
    task: { kind: 'scripts', id: nextId++, paths, jobs: part } satisfies VettingTask,
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

/** A tree scanned in a worker (scanTreeInWorker). */
export type TreeScan = Readonly<{
  /** Settles once every report has been given, rejects when the task fails (reports not given fail too). */
  done: Promise<void>;
  /** The scripts the hooks connector must have read (with `keep`), as the worker found them. */
  places: Promise<readonly ScriptPlace[]>;
  /** The hooks connector's report: its walk over the kept tree with the readings of `places`. */
  walk(places: readonly ScriptPlace[], analyses: readonly Analysis[], signal?: AbortSignal): Promise<ScanReport>;
  /** The kept tree is no longer needed. */
  forget(): void;
}>;

/**
 * Runs the tree scanners `names` over a tree in one worker, in that order; `onReport` is given each one's
 * report, or why it failed, as soon as it is made. With `keep`, the worker first names the scripts the
 * hooks connector must have read, and keeps the tree for that connector's walk (`walk`, on that worker).
 */
export function scanTreeInWorker(
  input: ScanInput,
  names: readonly string[],
  options: Readonly<{ keep: boolean; onReport: (name: string, outcome: ScanOutcome) => void }>,
  signal?: AbortSignal,
): TreeScan {
  const { port1, port2 } = new MessageChannel();
  const { maxFileBytes, license } = input;
  const id = nextId++;
  const keep = options.keep ? id : null;
  let ranOn: Worker | null = null;
  let named: (places: readonly ScriptPlace[]) => void = () => {};
  const places = new Promise<readonly ScriptPlace[]>((resolve) => (named = resolve));
  const task: VettingTask = { kind: 'scan', id, names, input: { files: port2, maxFileBytes, license }, keep };
  const finished = runTasks<null>(
    [
      {
        task,
        onStart: (worker) => (ranOn = worker),
        onPartial: (answer) =>
          'places' in answer ? named(answer.places) : options.onReport(answer.scanned, answer.outcome),
      },
    ],
    signal,
  );
  const done = (async () => {
    await ship(port1, input.files);
    await finished;
  })();
  // The task ends before naming the scripts only when it fails (or was not asked): `placed` fails then.
  const placed = Promise.race([
    places,
    done.then(() => Promise.reject(new Error('the vetting worker named no scripts'))),
  ]);
  done.catch(() => {}); // read by whoever awaits `done` or `places`
  placed.catch(() => {});
  return {
    done,
    places: placed,
    walk: async (read, analyses, walkSignal) => {
      const worker = ranOn as Worker | null;
      if (keep === null || worker === null) throw new Error('the tree was not kept for the hooks connector');
      const walk: VettingTask = { kind: 'walk', id: nextId++, tree: keep, places: read, analyses };
      return (await runTasks<ScanReport>([{ task: walk, pin: worker }], walkSignal))[0]!;
    },
    forget: () => {
      const worker = ranOn as Worker | null;
      if (keep !== null && worker !== null) worker.postMessage({ forget: keep } satisfies Forget);
    },
  };
}

/** A tree's facts (tree-facts.ts), read from git by a worker, ahead of the vetting work waiting. */
export async function treeFactsInWorker(
  repo: string,
  sha: string,
  settings: Omit<ScanInput, 'files' | 'byPath'>,
): Promise<TreeFacts> {
  const task: VettingTask = { kind: 'facts', id: nextId++, repo, sha, settings };
  return (await runTasks<TreeFacts>([{ task, urgent: true }]))[0]!;
}
