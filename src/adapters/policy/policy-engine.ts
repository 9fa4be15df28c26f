// Policy rules are evaluated in worker threads, so a costly rule never holds the event loop that serves
// the facade, the API and the portal, and an evaluation that outlives its time limit is stopped by
// terminating its worker (a CEL evaluation cannot be interrupted otherwise). The pool belongs to the
// process, like the grammars of the vetting parsers: started on the first evaluation, one worker per
// core but one (at least one, at most four), each running one evaluation at a time; a stopped worker is
// replaced on the next evaluation. An idle worker does not keep the process alive.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PolicyVariables } from '../../domain/policy/variables.ts';
import type { PolicyAnswer, PolicyTask } from './cel-worker.ts';
import { endWorker, release, workerModule, type WorkerSlot } from '../system/worker-slot.ts';

export type PolicyResult = { matched: boolean } | { error: string };

type Pending = Readonly<{ task: PolicyTask; timeoutMs: number; settle: (result: PolicyResult) => void }>;
type Slot = WorkerSlot<Pending & { timer: NodeJS.Timeout | null }> & {
  /** The worker has loaded its modules: an evaluation's time runs from then, never from its start-up. */
  ready: boolean;
};

const size = Math.max(1, Math.min(4, availableParallelism() - 1));
const slots: Slot[] = Array.from({ length: size }, (): Slot => ({ worker: null, ready: false, running: null }));
const queue: Pending[] = [];
let nextId = 1;

const workerUrl = workerModule(import.meta.url, 'cel-worker');

const seconds = (ms: number) => `${ms / 1000} s`;

function finish(slot: Slot, result: PolicyResult): void {
  const running = release(slot);
  if (running === null) return;
  if (running.timer !== null) clearTimeout(running.timer);
  running.settle(result);
  pump();
}

/** Stops a slot's worker (the next task starts a new one) and fails what it was running. */
function stop(slot: Slot, why: string): void {
  endWorker(slot);
  slot.ready = false;
  finish(slot, { error: why });
}

function start(slot: Slot): Worker {
  const worker = new Worker(workerUrl);
  // A worker that never finishes loading is stopped too.
  const loading = setTimeout(() => stop(slot, 'the policy worker did not start within 30 s'), 30_000);
  loading.unref();
  worker.on('message', (answer: PolicyAnswer) => {
    if ('ready' in answer) {
      clearTimeout(loading);
      slot.ready = true;
      if (slot.running !== null) slot.running.timer = timerFor(slot, slot.running);
    } else if (slot.running?.task.id === answer.id) finish(slot, answer.result);
  });
  worker.on('error', (error) => stop(slot, `the policy worker failed: ${error.message}`));
  worker.on('exit', (code) => {
    if (slot.worker === worker) stop(slot, `the policy worker stopped (exit code ${code})`);
  });
  return worker;
}

const timerFor = (slot: Slot, pending: Pending): NodeJS.Timeout =>
  setTimeout(
    () =>
      stop(
        slot,
        `the evaluation took longer than ${seconds(pending.timeoutMs)} (gateway.policy.evaluation-timeout) and was stopped`,
      ),
    pending.timeoutMs,
  );

function pump(): void {
  for (const slot of slots) {
    if (slot.running !== null || queue.length === 0) continue;
    const pending = queue.shift()!;
    const worker = (slot.worker ??= start(slot));
    worker.ref();
    slot.running = { ...pending, timer: slot.ready ? timerFor(slot, pending) : null };
    worker.postMessage(pending.task);
  }
}

/**
 * Evaluates a rule against the variables in a policy worker. Never rejects: a rule that does not compile,
 * fails, or outlives `timeoutMs` (counted from when a worker takes it) answers an error, and so does one
 * whose `signal` aborts first (a waiting evaluation leaves the queue, a running one stops its worker).
 */
export function evaluateInWorker(
  expression: string,
  variables: PolicyVariables,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<PolicyResult> {
  const aborted = { error: 'the evaluation was cancelled' };
  if (signal?.aborted) return Promise.resolve(aborted);
  return new Promise((settle) => {
    const pending: Pending = { task: { id: nextId++, expression, variables }, timeoutMs, settle };
    signal?.addEventListener(
      'abort',
      () => {
        const waiting = queue.indexOf(pending);
        if (waiting !== -1) {
          queue.splice(waiting, 1);
          settle(aborted);
          return;
        }
        const slot = slots.find((s) => s.running?.task === pending.task);
        if (slot) stop(slot, aborted.error);
      },
      { once: true },
    );
    queue.push(pending);
    pump();
  });
}
