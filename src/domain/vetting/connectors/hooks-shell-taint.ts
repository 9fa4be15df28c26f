// Where fetched or decoded code is kept before it runs: variables assigned it (`p=$(curl …)`, `read p <
// <(curl …)`, `mapfile L < <(curl …)`), files a fetch or a decode writes (`curl -o f`, `curl -O …/x.sh`,
// `wget -P dir …`, `… > f`), directories a fetched archive or repository lands in (`git clone u dir`,
// `curl … | tar x -C dir`), and sockets opened as file descriptors (`exec 3<>/dev/tcp/…`). Also which
// functions fetch, run their stdin or run their arguments, as bash would call them.
import { readsProgramFromStdin, decoders } from './hooks-shell-code.ts';
import { fetchers, type Simple } from './hooks-commands.ts';
import { commandsIn, untrusted, type Context } from './hooks-shell-context.ts';
import { runsArguments } from './hooks-indirection.ts';
import { childOf, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

/** `./x` and `x` are one file. */
export const normalPath = (path: string): string => path.replace(/^\.\//, '').replace(/\/+$/, '');

/** The last path segment of a URL, as `curl -O` and `wget` name what they save. */
const savedName = (url: string): string | null => {
  const m = /^[a-z]+:\/\/[^/]+\/(?:[^?#]*\/)?([^/?#]+)(?:[?#].*)?$/i.exec(url);
  return m && !m[1]!.includes('$') ? m[1]! : null;
};

/** The files a fetcher writes: `-o f`, `--output=f`, `-O` (the URL's name), wget's default and `-P dir`. */
function fetchedFiles(simple: Simple): string[] {
  const files: string[] = [];
  const values = simple.args.map((a) => a.value);
  const urls = values.filter((v) => /^[a-z]+:\/\//i.test(v));
  let dir = '';
  let named = false;
  values.forEach((value, i) => {
    const next = values[i + 1];
    if (simple.name === 'curl' && /^(?:-o|--output)$/.test(value) && next) files.push(next);
    else if (simple.name !== 'curl' && /^(?:-O|--output-document)$/.test(value) && next) files.push(next);
    else if (/^(?:-P|--directory-prefix)$/.test(value) && next) dir = `${next.replace(/\/+$/, '')}/`;
    const attached = /^--(?:output|output-document)=(.+)$/.exec(value) ?? /^-\w*[oO](\S+)$/.exec(value);
    if (attached) files.push(attached[1]!);
    if (
      simple.name === 'curl' &&
      (/^-\w*O\w*$/.test(value) || value === '--remote-name' || value === '--remote-name-all')
    )
      named = true;
  });
  if (simple.name === 'wget' || simple.name === 'wget2') named = files.length === 0;
  if (named) for (const url of urls) if (savedName(url)) files.push(`${dir}${savedName(url)!}`);
  return files;
}

/** `git clone url [dir]`: the directory the repository lands in. */
function clonedDir(simple: Simple): string | null {
  if (simple.name !== 'git' || simple.args[0]?.value !== 'clone') return null;
  const operands = simple.args
    .slice(1)
    .filter(
      (a, i, all) =>
        !a.value.startsWith('-') && !/^-(?:b|o|c|-branch|-depth|-origin|-config)$/.test(all[i - 1]?.value ?? ''),
    );
  const url = operands[0]?.value;
  if (url === undefined) return null;
  return (
    operands[1]?.value ??
    url
      .replace(/\/+$/, '')
      .replace(/^.*[/:]/, '')
      .replace(/\.git$/, '')
  );
}

/** `tar x -C dir`, `unzip -d dir`, `tar x` (here): where an archive is unpacked. */
function unpackedDir(simple: Simple): string | null {
  const values = simple.args.map((a) => a.value);
  const extracts =
    (simple.name === 'tar' || simple.name === 'bsdtar') && values.some((v) => /^-?[a-zA-Z]*x|^--extract$/.test(v));
  if (!extracts && simple.name !== 'unzip') return null;
  const flag = values.findIndex((v) => v === '-C' || v === '--directory' || (simple.name === 'unzip' && v === '-d'));
  return flag !== -1 && values[flag + 1] ? values[flag + 1]! : '.';
}

function taintFiles(ctx: Context, root: ShellNode): void {
  for (const simple of commandsIn(ctx, root)) {
    if (simple.name !== null && fetchers.has(simple.name))
      for (const file of fetchedFiles(simple)) ctx.taintedFiles.add(normalPath(file));
    const cloned = clonedDir(simple);
    if (cloned) ctx.taintedDirs.add(normalPath(cloned));
  }
  for (const statement of nodesWhere(root, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    if (body === undefined) continue;
    const redirects = statement.children.filter((c) => c.type === 'file_redirect');
    // `exec 3<>/dev/tcp/host/80`: descriptor 3 is a socket from here on.
    for (const redirect of redirects) {
      const destination = childOf(redirect, 'destination');
      const descriptor = redirect.children.find((c) => c.type === 'file_descriptor');
      if (descriptor && destination && /^\/dev\/(?:tcp|udp)\//.test(wordValue(ctx.source, destination)))
        ctx.remoteFds.add(textOf(ctx.source, descriptor));
    }
    if (!untrusted(ctx, body)) continue;
    for (const redirect of redirects) {
      const destination = childOf(redirect, 'destination');
      const file = destination ? normalPath(wordValue(ctx.source, destination)) : '';
      // `> /dev/null`, `> /dev/stderr`: a device, not a file anything can run later.
      if (destination && /^\s*\d*>/.test(textOf(ctx.source, redirect)) && !file.startsWith('/dev/'))
        ctx.taintedFiles.add(file);
    }
  }
  // A fetched archive unpacked: `curl … | tar xz -C dir`.
  for (const pipeline of nodesWhere(root, (n) => n.type === 'pipeline')) {
    const stages = pipeline.children;
    stages.forEach((stage, i) => {
      if (i === 0 || !stages.slice(0, i).some((s) => untrusted(ctx, s))) return;
      for (const simple of commandsIn(ctx, stage)) {
        const dir = unpackedDir(simple);
        if (dir) ctx.taintedDirs.add(normalPath(dir));
      }
    });
  }
}

/** `read p`, `mapfile L`, `readarray L` whose stdin is fetched (`< <(curl …)`, `<<< "$(curl …)"`, `curl … |`). */
function taintReads(ctx: Context, root: ShellNode): void {
  const reading = (s: Simple) => /^(?:read|mapfile|readarray)$/.test(s.name ?? '');
  const targets = (s: Simple) => s.args.map((a) => a.value).filter((v) => /^[A-Za-z_]\w*$/.test(v));
  for (const statement of nodesWhere(root, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    const inputs = statement.children.filter(
      (c) => c.field === 'redirect' && /^\s*\d*<(?!&)|^<<</.test(textOf(ctx.source, c)),
    );
    if (body === undefined || !inputs.some((input) => untrusted(ctx, input))) continue;
    for (const simple of commandsIn(ctx, body))
      if (reading(simple)) targets(simple).forEach((v) => ctx.taintedVariables.add(v));
  }
  for (const pipeline of nodesWhere(root, (n) => n.type === 'pipeline')) {
    pipeline.children.forEach((stage, i) => {
      if (i === 0 || !pipeline.children.slice(0, i).some((s) => untrusted(ctx, s))) return;
      for (const simple of commandsIn(ctx, stage))
        if (reading(simple)) targets(simple).forEach((v) => ctx.taintedVariables.add(v));
    });
  }
}

/** Variables assigned fetched or decoded content, and files and directories a fetch writes. */
export function taint(ctx: Context, root: ShellNode): void {
  const assignments = nodesWhere(root, (n) => n.type === 'variable_assignment');
  const loops = nodesWhere(root, (n) => n.type === 'for_statement');
  taintFiles(ctx, root);
  // A second round only when the first tainted a variable another assignment or read may use.
  for (let round = 0, before = -1; round < 3 && before !== ctx.taintedVariables.size; round++) {
    before = ctx.taintedVariables.size;
    for (const assignment of assignments) {
      const name = childOf(assignment, 'name');
      const value = childOf(assignment, 'value');
      if (name && value && untrusted(ctx, value)) ctx.taintedVariables.add(textOf(ctx.source, name));
    }
    // `for l in "${L[@]}"`: each item of a tainted list.
    for (const loop of loops) {
      const variable = childOf(loop, 'variable');
      const items = loop.children.filter((c) => c.field === 'value');
      if (variable && items.some((item) => untrusted(ctx, item)))
        ctx.taintedVariables.add(textOf(ctx.source, variable));
    }
    taintReads(ctx, root);
  }
}

/** Functions that fetch or decode, that run their stdin, or that run their arguments, as bash would call them. */
export function classifyFunctions(ctx: Context, root: ShellNode): void {
  const functions = nodesWhere(root, (n) => n.type === 'function_definition');
  const size = () => ctx.names.producers.size + ctx.names.consumers.size + ctx.names.evaluators.size;
  // A second round only when the first found a wrapper another function may call.
  for (let round = 0, before = -1; round < 2 && functions.length > 0 && before !== size(); round++) {
    before = size();
    for (const fn of functions) {
      const name = childOf(fn, 'name');
      const body = childOf(fn, 'body');
      if (name === undefined || body === undefined) continue;
      const key = textOf(ctx.source, name).toLowerCase();
      // One pass over the body's commands (no variable is tainted yet: taint() runs after this).
      for (const s of commandsIn(ctx, body)) {
        if (s.name === null || fetchers.has(s.name) || ctx.names.producers.has(s.name) || decoders(s))
          ctx.names.producers.add(key);
        if (s.name !== null && s.name !== key && readsProgramFromStdin(s, ctx.names)) ctx.names.consumers.add(key);
        if (runsArguments(ctx.source, s) || (s.name !== null && ctx.names.evaluators.has(s.name)))
          ctx.names.evaluators.add(key);
      }
    }
  }
}
