// How the hooks connector and the capability inventory read scripts: the parsers (WebAssembly grammars,
// loaded once per process) and the analyser over them.
import { scriptAnalyser, type ScriptReading } from '../../domain/vetting/connectors/hooks-analysis.ts';
import { loadShellParser } from './shell-parser.ts';

let loading: Promise<ScriptReading> | null = null;

/** The script reading of this process; a failed load is tried again on the next call. */
export function loadScriptReading(): Promise<ScriptReading> {
  loading ??= loadShellParser().then((parse) => ({ analyse: scriptAnalyser(parse), parse }));
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
