// How the hooks connector and the capability inventory read scripts: the parsers (WebAssembly grammars
// for bash, Python, JavaScript and TypeScript, loaded once per process) and the analyser over them,
// which reads each script in its language (hooks-analysis.ts). For a tree, the scripts its plugins ship
// are read ahead in the worker threads of vetting-pool.ts; a little script text (under 64 KiB, a few
// milliseconds of reading) is read on the calling thread, where starting the work costs more than it.
import { readAhead, scriptAnalyser, type ScriptReading } from '../../domain/vetting/connectors/hooks-analysis.ts';
import { scriptsToRead } from '../../domain/vetting/connectors/hooks-scripts.ts';
import type { ScanInput } from '../../domain/kernel/findings.ts';
import { layoutOf } from '../../domain/plugin/layout.ts';
import { analyseInWorkers } from './vetting-pool.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';

/** Script text below which a tree's scripts are read on the calling thread. */
const inlineBytes = 64 * 1024;

let loading: Promise<ScriptReading> | null = null;

/** The script reading of this process; a failed load is tried again on the next call. */
export function loadScriptReading(): Promise<ScriptReading> {
  loading ??= loadSyntaxParsers().then((parsers) => ({ analyse: scriptAnalyser(parsers), parse: parsers.bash }));
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

/**
 * The script reading of one tree: every script its plugins ship is read ahead (in the workers when there
 * is enough of it); the analyser answers from those readings, and reads any other file on the spot.
 */
export async function readScriptsOf(input: ScanInput, signal?: AbortSignal): Promise<ScriptReading> {
  const reading = await loadScriptReading();
  const jobs = scriptsToRead(input, layoutOf(input));
  const bytes = jobs.reduce((sum, job) => sum + job.file.text.length, 0);
  if (bytes < inlineBytes) return reading;
  const analyses = await analyseInWorkers(jobs, [...input.byPath.keys()], signal);
  return readAhead(
    reading,
    jobs.map(({ file, root }) => ({ path: file.path, root })),
    analyses,
  );
}
