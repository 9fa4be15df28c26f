// Programs a Python or JavaScript script starts (`subprocess.run([...])`, `os.system("…")`,
// `execSync("…")`, `spawn(program, args)`): a command line is read as shell (hooks-shell.ts and the
// shell facts judge it, computed parts standing as `$1`), code given to an interpreter (`bash -c`,
// `python3 -c`, `node -e`, a shell fed fetched text on stdin) is judged as code, a file the script
// downloaded and then runs is remote code, and the plugin files it runs are followed (hooks-reach.ts).
import { shellFacts } from './hooks-facts.ts';
import { commandHosts } from './hooks-facts-hosts.ts';
import { execute, fact, homeFirst, isForeignCode, risk, send, startupFile, writeData } from './hooks-effects.ts';
import { labelKind, labelsOf, textOf, type Flow, type Label, type Value } from './hooks-flow.ts';
import type { ScriptFact } from './hooks-analysis-types.ts';
import { commandWords, invocationOf, type Invocation } from './hooks-reach.ts';
import { scriptRisks, type LocatedRisk } from './hooks-shell.ts';
import { commandName, type ShellNode } from './hooks-syntax.ts';

const authWord =
  /^(?:authorization|proxy-authorization|x-api-key|api-key|private-token|x-auth-token|[\w-]*-token|cookie)\s*:/i;

/** Code of another language held in a string of the script: read by that language's analyser. */
export type Nested = (language: 'python' | 'javascript', code: string, node: ShellNode) => void;

const shells = /^(?:(?:ba|z|k|da|a|mk|fi|c|tc)?sh|busybox)$/;
const pythons = /^(?:python[\d.]*|pythonw|py|pypy[\d.]*)$/;
const nodes = /^(?:node|nodejs|deno|bun)$/;
const interpreters = /^(?:perl|ruby|php|pwsh|powershell|lua|tclsh|osascript)$/;

/** A word of a command line as shell reads it: known text quoted, computed text as `$1`. */
function word(value: Value): string {
  if (value.str !== undefined) return `'${value.str.replaceAll("'", `'\\''`)}'`;
  if (value.template !== undefined)
    return value.template
      .split('\u0001')
      .map((part) => (part === '' ? '' : `'${part.replaceAll("'", `'\\''`)}'`))
      .join('"$1"');
  return '"$1"';
}

/** The text of a command line the script builds, computed parts as `$1`. */
const commandText = (value: Value): string | undefined => value.str ?? value.template?.replaceAll('\u0001', '"$1"');

type CommandLine = Readonly<{
  risks: readonly LocatedRisk[];
  facts: readonly ScriptFact[];
  runs: readonly Invocation[];
  hosts: readonly string[];
  output: readonly Label[];
}>;

/** What a command line does, read once per script however often the evaluation meets it. */
function readCommandLine(flow: Flow, line: string): CommandLine {
  const known = flow.commandLines.get(line) as CommandLine | undefined;
  if (known !== undefined) return known;
  const tree = flow.parsers.bash(line);
  const facts = shellFacts(line, tree, flow.parsers.bash);
  const output: Label[] = [];
  const hosts: string[] = [];
  for (const found of facts) {
    if (found.kind === 'contacts-host') hosts.push(found.value);
    if (found.kind === 'reads-credentials') output.push(`cred:${found.value}`);
    if (found.kind === 'reads-env') output.push(`env:${found.value}`);
  }
  for (const host of hosts) output.push(`fetched:${host}`);
  if (/\bbase64\s+(?:-d|--decode|-D)\b|\bxxd\s+-r|\bopenssl\s+(?:base64|enc)\b[^|;&]*\s-d\b/.test(line))
    output.push('decoded:base64');
  const runs = commandWords(line, tree)
    .map((words) => invocationOf(words, flow.dir, flow.root, flow.exists))
    .filter((run): run is Invocation => run !== null && run.path !== flow.path);
  const read = { risks: scriptRisks(line, flow.parsers.bash, tree), facts, runs, hosts, output };
  flow.commandLines.set(line, read);
  return read;
}

/** Reads a command line as shell: its risks, facts and the plugin files it runs, at the call's line. */
function shellLine(
  flow: Flow,
  node: ShellNode,
  line: string,
  via: string,
  carried: readonly Value[],
): readonly Label[] {
  const read = readCommandLine(flow, line);
  for (const found of read.risks) risk(flow, found.id, found.severity, `${found.what} (${via})`, node);
  for (const found of read.facts) fact(flow, found.kind, found.value, node);
  flow.report.runs.push(...read.runs);
  // A network program given the script's data (`curl -d "$SECRET"`, `input=json.dumps(os.environ)`); a
  // header or `-u` that authenticates it is where its credentials go.
  if (carried.some((value) => labelsOf(value).length > 0)) {
    const parts = carried.map((value, i) => ({
      value,
      auth:
        authWord.test(textOf(value) ?? '') ||
        /^(?:-u|--user|--oauth2-bearer|--proxy-user)$/.test(carried[i - 1]?.str ?? ''),
    }));
    for (const host of read.hosts) send(flow, node, { via, target: { str: `https://${host}/` }, parts, posts: true });
  }
  return read.output;
}

export type Run = Readonly<{
  via: string;
  /** The program and its arguments, when the script lists them; `rest` joins those it computes. */
  argv?: readonly Value[];
  rest?: Value;
  /** A command line a shell runs (`os.system`, `shell=True`, `exec`). */
  command?: Value;
  /** What the program reads on stdin. */
  stdin?: Value;
}>;

const reportForeign = (flow: Flow, node: ShellNode, code: Value, via: string) => execute(flow, node, code, via);

/** A program the script starts; its output is what the program makes of the data it reads. */
export function runProgram(flow: Flow, node: ShellNode, run: Run, nested: Nested): Value {
  const labels: Label[] = [];
  const stdin = run.stdin === undefined ? [] : [run.stdin];
  if (run.command !== undefined) {
    if (isForeignCode(run.command)) reportForeign(flow, node, run.command, `a shell (${run.via})`);
    const line = commandText(run.command);
    if (line !== undefined) labels.push(...shellLine(flow, node, line, run.via, [run.command, ...stdin]));
  }
  const argv = run.argv ?? [];
  const program = commandName(argv[0]?.str ?? '');
  if (argv.length > 0) {
    const args = argv.slice(1);
    const flag = args.findIndex((a) =>
      (shells.test(program) ? /^-\w*c$/ : /^-(?:c|e|p|-eval|-print)$/).test(a.str ?? ''),
    );
    const code = flag === -1 ? undefined : args[flag + 1];
    if (
      code !== undefined &&
      (shells.test(program) || pythons.test(program) || nodes.test(program) || interpreters.test(program))
    ) {
      if (isForeignCode(code)) reportForeign(flow, node, code, `${program} (${run.via})`);
      else if (code.str !== undefined && shells.test(program))
        labels.push(...shellLine(flow, node, code.str, run.via, stdin));
      else if (code.str !== undefined && pythons.test(program)) nested('python', code.str, node);
      else if (code.str !== undefined && nodes.test(program)) nested('javascript', code.str, node);
    }
    // A shell or interpreter with no program file reads its program from stdin.
    const operand = args.find((a) => !(a.str ?? '').startsWith('-') || a.str === '-');
    const readsStdin = operand === undefined || operand.str === '-' || operand.str === '/dev/stdin';
    // A program the script computes may be an interpreter as well as any other.
    const runsCode =
      program === '' ||
      shells.test(program) ||
      pythons.test(program) ||
      nodes.test(program) ||
      interpreters.test(program);
    if (runsCode && code === undefined && readsStdin && run.stdin !== undefined && isForeignCode(run.stdin))
      reportForeign(flow, node, run.stdin, `${program} reading its stdin (${run.via})`);
    // A file the script downloaded, run as a program or given to an interpreter.
    const downloaded = argv.find((a, i) => (i === 0 || runsCode) && a.str !== undefined && fetchedFile(flow, a.str));
    if (downloaded !== undefined)
      risk(
        flow,
        'hooks-remote-code-execution',
        'CRITICAL',
        `runs a file it downloaded (${downloaded.str}) with ${run.via}`,
        node,
      );
    if (code === undefined || !shells.test(program)) {
      // Inline code was judged above as code: the command line shows only the program that runs it.
      const line = argv.map((a, i) => (i === flag + 2 && code !== undefined ? '"$1"' : word(a))).join(' ');
      labels.push(...shellLine(flow, node, line, run.via, [...args, ...(run.rest ? [run.rest] : []), ...stdin]));
    }
    const words = argv.map((a) => a.str ?? a.template?.replaceAll('\u0001', '$1') ?? '$1');
    if (commandHosts(program, words.slice(1)).length === 0) {
      const invoked = invocationOf(words, flow.dir, flow.root, flow.exists);
      if (invoked !== null && invoked.path !== flow.path) flow.report.runs.push(invoked);
    }
  }
  return labels.length > 0 ? { taint: [...new Set(labels)] } : {};
}

/** Did the script write fetched or decoded content to this path? */
export const fetchedFile = (flow: Flow, path: string): boolean =>
  (flow.files.get(path) ?? []).some((l) => labelKind(l) === 'fetched' || labelKind(l) === 'decoded');

/**
 * Data written to a file (hooks-effects.ts judges where and what); text written into a shell startup
 * file is shell that runs in every new shell, so it is read as such (`curl … | sh` appended to ~/.zshrc).
 */
export function writeFile(flow: Flow, node: ShellNode, path: Value, data: Value): void {
  writeData(flow, node, path, data);
  const target = path.str === undefined ? undefined : homeFirst(path.str);
  const line = data.str ?? data.template?.replaceAll('\u0001', '"$1"');
  if (target !== undefined && startupFile.test(target) && line !== undefined && line.trim() !== '')
    shellLine(flow, node, line, `written into ${target}`, []);
}
