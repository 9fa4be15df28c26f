// The hooks connector's scripts are parsed and analysed in worker threads: reading a plugin's scripts
// (tree-sitter parses and a data-flow analysis) is most of what vetting costs, and it neither belongs on
// the event loop that serves the facade, the API and the portal, nor needs to wait for one core. The pool
// belongs to the process: started on the first large read, one worker per core (at most four), each
// reading one batch at a time; a stopped worker is replaced on the next batch, and an idle one does not
// keep the process alive. A read is split into batches of about equal text, a few per worker, so that
// the workers finish together.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Analysis } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScriptAnswer, ScriptJob, ScriptTask } from './script-worker.ts';

export type { ScriptJob } from './script-worker.ts';

type Pending = Readonly<{ task: ScriptTask; settle: (answer: Analysis[] | Error) => void }>;
type Slot = { worker: Worker | null; running: Pending | null };

const size = Math.max(1, Math.min(4, availableParallelism()));
const slots: Slot[] = Array.from({ length: size }, (): Slot => ({ worker: null, running: null }));
const queue: Pending[] = [];
let nextId = 1;

// Under tsx (development, tests) the worker is the TypeScript file; built, the JavaScript next to this one.
const workerUrl = new URL(
  import.meta.url.endsWith('.ts') ? './script-worker.ts' : './script-worker.js',
  import.meta.url,
);

function finish(slot: Slot, answer: Analysis[] | Error): void {
  const running = slot.running;
  if (running === null) return;
  slot.running = null;
  slot.worker?.unref(); // an idle worker does not keep the process alive; a busy one does
  running.settle(answer);
  pump();
}

/** Stops a slot's worker (the next batch starts a new one) and fails what it was reading. */
function stop(slot: Slot, why: string): void {
  const worker = slot.worker;
  slot.worker = null;
  if (worker !== null) {
    worker.removeAllListeners();
    worker.on('error', () => {}); // an error while terminating has no one left to tell
    void worker.terminate();
  }
  finish(slot, new Error(why));
}

function start(slot: Slot): Worker {
  const worker = new Worker(workerUrl);
  const loading = setTimeout(() => stop(slot, 'a script worker did not start within 30 s'), 30_000);
  loading.unref();
  worker.on('message', (answer: ScriptAnswer) => {
    if ('ready' in answer) clearTimeout(loading);
    else if (slot.running?.task.id === answer.id)
      finish(slot, 'error' in answer ? new Error(answer.error) : [...answer.analyses]);
  });
  worker.on('error', (error) => stop(slot, `a script worker failed: ${error.message}`));
  worker.on('exit', (code) => {
    if (slot.worker === worker) stop(slot, `a script worker stopped (exit code ${code})`);
  });
  return worker;
}

function pump(): void {
  for (const slot of slots) {
    if (slot.running !== null || queue.length === 0) continue;
    const pending = queue.shift()!;
    const worker = (slot.worker ??= start(slot));
    worker.ref();
    slot.running = pending;
    worker.postMessage(pending.task);
  }
}

/** The reason to abort a reading with when its result is no longer wanted (not that it must stop). */
export const givenUp: unique symbol = Symbol('given up');

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
 * Reads the scripts in the pool's workers and gives their analyses in the order of `jobs`. `paths` are the
 * tree's files (what a script's invocations may name). Rejects when a worker fails or `signal` aborts (a
 * waiting batch leaves the queue, a running one stops its worker).
 */
export async function analyseInWorkers(
  jobs: readonly ScriptJob[],
  paths: readonly string[],
  signal?: AbortSignal,
): Promise<Analysis[]> {
  if (jobs.length === 0) return [];
  const parts = batches(jobs, size * 3);
  const pendings: Pending[] = [];
  const answers = parts.map(
    (part) =>
      new Promise<Analysis[]>((resolve, reject) => {
        const pending: Pending = {
          task: { id: nextId++, paths, jobs: part },
          settle: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)),
        };
        pendings.push(pending);
        queue.push(pending);
      }),
  );
  // Cancelled, the waiting batches leave the queue and the running ones stop their workers; given up (the
  // reading is no longer wanted, `signal.reason` is givenUp), the running ones finish unread, which costs
  // less than starting new workers.
  const cancel = () => {
    for (const pending of pendings) {
      const waiting = queue.indexOf(pending);
      if (waiting !== -1) {
        queue.splice(waiting, 1);
        pending.settle(new Error('the script reading was cancelled'));
      }
      const slot = slots.find((s) => s.running === pending);
      if (slot && signal?.reason !== givenUp) stop(slot, 'the script reading was cancelled');
    }
  };
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  pump();
  try {
    // Every batch settles (a failure is not left running behind the first rejection).
    const settled = await Promise.allSettled(answers);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return settled.flatMap((s) => (s as PromiseFulfilledResult<Analysis[]>).value);
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
