import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The functions of `src/` that ran in a window: file (relative to the repository) → the names of those that ran. */
export type CodeTrace = Map<string, Set<string>>;

// What the TypeScript loader and the engine add: the bundler's name-keeping helper and class field initializers.
const helpers = new Set(['__name', '<instance_members_initializer>', '<static_initializer>']);

const repository = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Which of the gateway's own functions run while `work` runs, read from V8's precise coverage (call counts,
 * reset at each take) in this process. The gateway under test runs in this process, so a request's path is
 * what ran between the two takes; work on worker threads (vetting connectors) and in child processes (git) is
 * not seen. Module bodies are left out: they run once, at import.
 */
export async function codeTracer() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const take = async (): Promise<CodeTrace> => {
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const trace: CodeTrace = new Map();
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const file = relative(repository, fileURLToPath(script.url));
      if (!file.startsWith('src/')) continue;
      for (const fn of script.functions) {
        const range = fn.ranges[0];
        if (range === undefined || range.count === 0 || range.startOffset === 0) continue;
        const names = trace.get(file) ?? trace.set(file, new Set()).get(file)!;
        if (fn.functionName !== '' && !helpers.has(fn.functionName)) names.add(fn.functionName);
      }
    }
    return trace;
  };
  return {
    /** What ran while `work` ran (everything before it is discarded). */
    async during(work: () => Promise<unknown>): Promise<CodeTrace> {
      await take();
      await work();
      return take();
    },
    async close(): Promise<void> {
      await session.post('Profiler.stopPreciseCoverage');
      session.disconnect();
    },
  };
}

/** What every trace saw: the files in all of them, each with the functions that ran in all of them. */
export function common(traces: readonly CodeTrace[]): CodeTrace {
  const [first, ...rest] = traces;
  const shared: CodeTrace = new Map();
  for (const [file, names] of first ?? []) {
    if (!rest.every((trace) => trace.has(file))) continue;
    shared.set(file, new Set([...names].filter((name) => rest.every((trace) => trace.get(file)!.has(name)))));
  }
  return shared;
}
