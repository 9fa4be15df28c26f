// A policy worker: compiles and evaluates rules off the event loop, one at a time, for
// policy-engine.ts, which stops it when an evaluation outlives its time limit.
import { parentPort } from 'node:worker_threads';
import type { PolicyVariables } from '../../domain/policy/variables.ts';
import { compilePolicy, evaluatePolicy, preparePolicyEnvironment, type CompiledPolicy } from './cel.ts';

export type PolicyTask = Readonly<{ id: number; expression: string; variables: PolicyVariables }>;
/** An evaluation's result, or (first, once its modules are loaded) that the worker is ready. */
export type PolicyAnswer =
  Readonly<{ id: number; result: { matched: boolean } | { error: string } }> | Readonly<{ ready: true }>;

// Rules compiled once per worker (the cache is bounded).
const compiled = new Map<string, CompiledPolicy | string>();
function programOf(expression: string): CompiledPolicy | string {
  let entry = compiled.get(expression);
  if (entry === undefined) {
    const result = compilePolicy(expression);
    entry = result.ok ? result.program : result.error;
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(expression, entry);
  }
  return entry;
}

parentPort?.on('message', ({ id, expression, variables }: PolicyTask) => {
  const program = programOf(expression);
  const result = typeof program === 'string' ? { error: program } : evaluatePolicy(program, variables);
  parentPort!.postMessage({ id, result } satisfies PolicyAnswer);
});

// Ready once rules can be compiled: the time limit of an evaluation starts when the worker is ready.
preparePolicyEnvironment();
parentPort?.postMessage({ ready: true } satisfies PolicyAnswer);
