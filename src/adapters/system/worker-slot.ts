// What the process's worker pools (the policy rules' and the vetting's) share: where a worker's module
// is, how a slot gives up the task it ran, and how a worker is ended without being heard from again.
import type { Worker } from 'node:worker_threads';

/** A pool's place for one worker and the task it runs. */
export type WorkerSlot<Running> = { worker: Worker | null; running: Running | null };

/** The worker module `name` next to `moduleUrl`: the TypeScript file under tsx (development, tests), the JavaScript one built. */
export const workerModule = (moduleUrl: string, name: string): URL =>
  new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl);

/**
 * Takes the task a slot runs off it (null when it runs none). The slot's worker stays, idle: it no longer
 * keeps the process alive; a busy one does.
 */
export function release<Running>(slot: WorkerSlot<Running>): Running | null {
  const running = slot.running;
  if (running === null) return null;
  slot.running = null;
  slot.worker?.unref();
  return running;
}

/** Ends a slot's worker (the next task starts a new one); an error while terminating has no one left to tell. */
export function endWorker(slot: WorkerSlot<unknown>): void {
  const worker = slot.worker;
  slot.worker = null;
  if (worker === null) return;
  worker.removeAllListeners();
  worker.on('error', () => {});
  void worker.terminate();
}
