// How the hooks connector and the capability inventory read scripts: the parsers (WebAssembly grammars
// for bash, Python, JavaScript and TypeScript, loaded once per process) and the analyser over them,
// which reads each script in its language (hooks-analysis.ts).
import { scriptAnalyser, type ScriptReading } from '../../domain/vetting/connectors/hooks-analysis.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';

let loading: Promise<ScriptReading> | null = null;

/** The script reading of this process; a failed load is tried again on the next call. */
export function loadScriptReading(): Promise<ScriptReading> {
  loading ??= loadSyntaxParsers().then((parsers) => ({ analyse: scriptAnalyser(parsers), parse: parsers.bash }));
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
