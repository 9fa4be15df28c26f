// Where credentials and data of this machine go. A home-directory credential store or the keychain read
// is a risk wherever it goes; a secret the script is given (a secret variable, the environment, the
// project's `.env`) and data of this machine (the hook's input, a file's contents, the user name) are a
// risk when they leave the machine: sent by a network command (its data, files, URL, headers), piped to
// one, or written to a shared temporary file. A secret sent to the service it is named for
// (`$CEREBRAS_API_KEY` to api.cerebras.ai), or to an address the user's environment sets, is an API
// client doing its work; so is data the script builds from its arguments.
import { credentialRead, dumpsEnvironment, fileArgs, secretVariables, type Simple } from './hooks-commands.ts';
import { lineRisks } from './hooks-lines.ts';
import { add, commandsIn, joined, nothing, simpleIn, type Carried, type Context } from './hooks-shell-context.ts';
import { sendOf, type Send } from './hooks-shell-sends.ts';
import { allLocal, isLocalHost, isServiceOf, placeOf } from './hooks-shell-values.ts';
import { childOf, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

const localVariables =
  /^(?:PWD|OLDPWD|HOME|USER|LOGNAME|USERNAME|HOSTNAME|CLAUDE_PROJECT_DIR|SSH_CONNECTION|SSH_CLIENT)$/;
/** Commands whose output describes this machine or its files. */
const describers =
  /^(?:whoami|hostname|id|uname|pwd|ps|ifconfig|ip|history|git|find|ls|tree|tar|zip|7z|du|stat|lsof|netstat|ss)$/;
/** Commands that print a file they are given, or their stdin (in a hook, its input). */
const printers =
  /^(?:cat|tac|head|tail|base64|xxd|od|hexdump|strings|gzip|bzip2|xz|jq|yq|sed|awk|gawk|grep|cut|sort|uniq|tr|wc|nl)$/;

/** Commands under `node` that read the stdin the script was given (not a later pipeline stage, not redirected). */
function stdinReaders(node: ShellNode): Set<ShellNode> {
  const fed = new Set<ShellNode>();
  for (const pipeline of nodesWhere(node, (n) => n.type === 'pipeline'))
    for (const stage of pipeline.children.slice(1))
      for (const command of nodesWhere(stage, (n) => n.type === 'command')) fed.add(command);
  for (const statement of nodesWhere(node, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    if (body?.type === 'command') fed.add(body);
  }
  return new Set(nodesWhere(node, (n) => n.type === 'command' && !fed.has(n)));
}

/** What the commands and variables of a word or statement carry. */
export function carriedIn(ctx: Context, node: ShellNode): Carried {
  const parts: Carried[] = [];
  for (const variable of nodesWhere(node, (n) => n.type === 'variable_name')) {
    const name = textOf(ctx.source, variable);
    const known = ctx.carriedBy.get(name);
    if (known) parts.push(known);
    if (localVariables.test(name)) parts.push({ ...nothing, local: true });
  }
  const secrets = secretVariables(node, ctx.source).filter((v) => !ctx.names.constants.has(v));
  if (secrets.length > 0) parts.push({ ...nothing, secrets });
  const unfed = stdinReaders(node);
  for (const command of nodesWhere(node, (n) => n.type === 'command')) {
    const simple = simpleIn(ctx, command);
    if (simple === null) continue;
    const read = credentialRead(ctx.source, simple, ctx.names.constants);
    if (read && !read.what.startsWith('uses the secret'))
      parts.push({ ...nothing, credentials: [read.what.replace(/^reads /, '')] });
    const name = simple.name ?? '';
    const reads =
      describers.test(name) ||
      dumpsEnvironment(simple) ||
      (printers.test(name) &&
        (fileArgs(simple).some((a) => !a.value.startsWith('-')) ||
          (unfed.has(command) && !simple.args.some((a) => /^(?:-n|--null-input)$/.test(a.value)))));
    if (reads) parts.push({ ...nothing, local: true });
  }
  return joined(parts);
}

const carries = (c: Carried): boolean => c.credentials.length > 0 || c.secrets.length > 0 || c.local;

/** Variables and files that hold credentials or data of this machine (two rounds: one variable may feed another). */
export function taintCarried(ctx: Context, root: ShellNode): void {
  const assignments = nodesWhere(root, (n) => n.type === 'variable_assignment');
  for (let round = 0, before = -1; round < 2 && before !== ctx.carriedBy.size; round++) {
    before = ctx.carriedBy.size;
    for (const assignment of assignments) {
      const name = childOf(assignment, 'name');
      const value = childOf(assignment, 'value');
      if (name === undefined || value === undefined) continue;
      const carried = carriedIn(ctx, value);
      const key = textOf(ctx.source, name);
      if (carries(carried)) ctx.carriedBy.set(key, joined([carried, ctx.carriedBy.get(key) ?? nothing]));
    }
  }
  for (const statement of nodesWhere(root, (n) => n.type === 'redirected_statement')) {
    const body = childOf(statement, 'body');
    if (body === undefined) continue;
    const carried = carriedIn(ctx, body);
    if (!carries(carried)) continue;
    for (const redirect of statement.children.filter((c) => c.type === 'file_redirect')) {
      const destination = childOf(redirect, 'destination');
      if (destination && /^\s*\d*>/.test(textOf(ctx.source, redirect)))
        ctx.carriedFiles.set(wordValue(ctx.source, destination).replace(/^\.\//, ''), carried);
    }
  }
}

type Where = Readonly<{ local: boolean; hosts: readonly string[]; configured: boolean; unknown: boolean }>;

const whereOf = (ctx: Context, send: Send): Where => {
  const places = send.destinations.map((d) => placeOf(ctx.source, d.node, ctx.names));
  return {
    local: allLocal(places),
    hosts: [...new Set(places.flatMap((p) => p.hosts).filter((h) => !isLocalHost(h)))],
    configured: places.some((p) => p.configured),
    unknown: places.length === 0 || places.some((p) => p.unknown),
  };
};

const hostsText = (where: Where): string =>
  where.hosts.length > 0 ? where.hosts.join(', ') : 'an address it is given';
const credentialText = (c: Carried): string => c.credentials[0] ?? `the secret $${c.secrets[0]!}`;

/** What the files a command uploads carry: data of this machine, and credentials when they are credential files. */
function uploaded(ctx: Context, files: Send['files']): Carried {
  return joined(
    files.map((f) => {
      const known = ctx.carriedFiles.get(f.value.replace(/^\.\//, '')) ?? nothing;
      const read = credentialRead(ctx.source, { node: f.node, name: 'cat', args: [f] }, ctx.names.constants);
      return joined([known, { ...nothing, local: true, credentials: read ? [read.what.replace(/^reads /, '')] : [] }]);
    }),
  );
}

/** A network command: what it sends and where, judged. */
export function judgeSend(ctx: Context, simple: Simple): void {
  const { node } = simple;
  if (simple.name === 'powershell' || simple.name === 'pwsh') {
    for (const risk of lineRisks(textOf(ctx.source, node)).filter((r) => r.id !== 'hooks-credential-access'))
      add(ctx, risk.id, risk.what, node);
    return;
  }
  const send = sendOf(simple);
  // A copy between local paths, a lookup of nothing: no other machine.
  if (send === null || (send.destinations.length === 0 && send.tool !== 'http')) return;
  const where = whereOf(ctx, send);
  if (where.local) return;
  const fromStdin = send.files.some((f) => f.value === '-');
  const inStdin = fromStdin ? (ctx.stdin.get(node) ?? { ...nothing, local: true }) : nothing;
  const files = send.files.filter((f) => f.value !== '-');
  // Data of this machine counts in what is posted; in a header or a URL only credentials do (a session id is not).
  const labels = joined([...send.rest, ...send.destinations].map((a) => carriedIn(ctx, a.node)));
  const sent = joined([
    ...send.data.map((a) => carriedIn(ctx, a.node)),
    { ...labels, local: false },
    uploaded(ctx, files),
    inStdin,
  ]);
  const auth = joined(send.auth.map((a) => carriedIn(ctx, a.node)));
  // A secret may go to the service it is named for, or where the user's environment says; nothing else may.
  const secretStays = (secret: string) =>
    !where.unknown && (where.hosts.length === 0 ? where.configured : where.hosts.every((h) => isServiceOf(secret, h)));
  // The user's own: an address their environment sets, or the service a key it authenticates with is for.
  const keyed = auth.secrets.filter(
    (secret) => where.hosts.length > 0 && where.hosts.every((h) => isServiceOf(secret, h)),
  );
  const users = !where.unknown && (where.hosts.length === 0 ? where.configured : keyed.length > 0);
  const leaked = joined([sent, auth]);
  const credentials = { ...leaked, secrets: leaked.secrets.filter((secret) => !secretStays(secret)) };
  if (credentials.credentials.length > 0 || credentials.secrets.length > 0) {
    add(ctx, 'hooks-credential-access', `sends ${credentialText(credentials)} to ${hostsText(where)}`, node);
    add(ctx, 'hooks-data-exfiltration', `sends credentials (${credentialText(credentials)}) off the machine`, node);
    return;
  }
  const computed = send.destinations.some(
    (d) => nodesWhere(d.node, (n) => n.type === 'command_substitution').length > 0,
  );
  if (send.tool === 'dns') {
    if (computed) add(ctx, 'hooks-data-exfiltration', 'sends command output in a DNS query', node);
    return;
  }
  if (computed) return add(ctx, 'hooks-data-exfiltration', 'sends command output in a URL off the machine', node);
  const local = sent.local || files.length > 0;
  if (local && !users) {
    const what = send.tool === 'socket' ? 'data through a raw socket' : 'local data';
    return add(ctx, 'hooks-data-exfiltration', `sends ${what} off the machine`, node);
  }
  const posting = send.data.length > 0 || files.length > 0 || send.posts;
  const what = local
    ? keyed.length > 0
      ? `sends local data to ${hostsText(where)}, the service its $${keyed[0]!} is for`
      : 'sends local data to an address the user configures'
    : posting
      ? `posts data it builds to ${hostsText(where)}`
      : 'fetches from the network';
  add(ctx, 'hooks-remote-fetch', what, node);
}

/** Is this command a network command that sends what it reads on stdin? */
const sendsStdin = (simple: Simple): boolean =>
  sendOf(simple)?.files.some((f) => f.value === '-') === true || simple.name === 'ssh';

/** Only text the script builds (`echo "$payload"`, `jq -n …`, a heredoc to `cat`). */
const builds = (ctx: Context, stage: ShellNode): boolean =>
  commandsIn(ctx, stage).every(
    (c) => /^(?:echo|printf|jq|cat)$/.test(c.name ?? '') && fileArgs(c).every((a) => a.value.startsWith('-')),
  );

/** A pipeline into a network command: what the stages before it carry is what it sends. */
export function judgePipeline(ctx: Context, stages: readonly ShellNode[]): void {
  stages.forEach((stage, i) => {
    if (i === 0) return;
    for (const command of nodesWhere(stage, (n) => n.type === 'command')) {
      const simple = simpleIn(ctx, command);
      if (simple === null || !sendsStdin(simple)) continue;
      const upstream = stages.slice(0, i);
      const carried = joined(upstream.map((s) => carriedIn(ctx, s)));
      ctx.stdin.set(command, { ...carried, local: carried.local || !upstream.every((s) => builds(ctx, s)) });
      if (simple.name === 'ssh' && (carried.credentials.length > 0 || carried.secrets.length > 0)) {
        add(ctx, 'hooks-credential-access', `sends ${credentialText(carried)} through ssh`, command);
        add(ctx, 'hooks-data-exfiltration', 'sends credentials off the machine through ssh', command);
      }
    }
  });
}

/** `… > /tmp/x` of credentials: a file every local user can read, staged for another command to send. */
export function judgeSharedWrite(ctx: Context, statement: ShellNode): void {
  const body = childOf(statement, 'body');
  if (body === undefined) return;
  for (const redirect of statement.children.filter((c) => c.type === 'file_redirect')) {
    const destination = childOf(redirect, 'destination');
    if (destination === undefined || !/^\s*\d*>/.test(textOf(ctx.source, redirect))) continue;
    if (!/^(?:\/tmp|\/var\/tmp|\/dev\/shm|\$\{?TMPDIR\}?)\//.test(wordValue(ctx.source, destination))) continue;
    const carried = carriedIn(ctx, body);
    if (carried.credentials.length > 0 || carried.secrets.length > 0)
      add(ctx, 'hooks-credential-access', `writes ${credentialText(carried)} to a shared temporary file`, statement);
  }
}
