// What one simple command of a hook script does, read from its parsed words: credentials it reads,
// data it sends off the machine, what it fetches. Only arguments a command is given count: a string
// an `echo` prints, a pattern `grep` matches, a `case` pattern or a `[[ =~ ]]` regex is not a read.
import { isLoopback, lineRisks, urlHosts } from './hooks-lines.ts';
import { childOf, commandName, isDynamic, nodesWhere, wordValue, type ShellNode } from './hooks-syntax.ts';

export type Arg = Readonly<{ node: ShellNode; value: string }>;
/** A command with its wrappers (`sudo`, `env X=1`, `timeout 5` …) taken off: what really runs. */
export type Simple = Readonly<{ node: ShellNode; name: string | null; args: readonly Arg[] }>;
export type Verdict = Readonly<{ id: string; what: string }>;

export const shells = new Set(['sh', 'bash', 'zsh', 'ksh', 'dash', 'ash', 'fish', 'csh', 'tcsh', 'mksh', 'busybox']);
export const fetchers = new Set(['curl', 'wget', 'aria2c', 'fetch', 'http', 'https', 'xh', 'lwp-download']);
const wrappers = new Set(['sudo', 'doas', 'command', 'builtin', 'exec', 'nohup', 'time', 'nice', 'stdbuf', 'env']);

/** The command node's name and arguments, wrappers skipped; a computed name (`$c`, `$(…)`) is null. */
export function simpleOf(source: string, node: ShellNode): Simple | null {
  const nameNode = childOf(node, 'name');
  if (nameNode === undefined) return null;
  const words = [nameNode, ...node.children.filter((child) => child.field === 'argument')];
  // The grammar can run a command on past its line (a pipeline before a heredoc): an unescaped newline
  // ends a command in bash, so the words after it are not arguments.
  const end = words.findIndex((word, i) => i > 0 && /(?<!\\)\n/.test(source.slice(words[i - 1]!.end, word.start)));
  if (end !== -1) words.length = end;
  let k = 0;
  for (;;) {
    const word = words[k];
    if (word === undefined) return { node, name: 'env', args: [] }; // `env` or `sudo env` alone: the environment
    if (isDynamic(word)) return { node, name: null, args: argsOf(source, words.slice(k + 1)) };
    const name = commandName(wordValue(source, word));
    if (!wrappers.has(name) && name !== 'timeout') {
      return { node, name, args: argsOf(source, words.slice(k + 1)) };
    }
    k++;
    // Options of the wrapper, `env`'s assignments, `timeout`'s duration.
    while (k < words.length && /^-|^[A-Za-z_]\w*=/.test(wordValue(source, words[k]!))) k++;
    if (name === 'timeout' && k < words.length) k++;
    if (k === words.length && name !== 'env') return null; // `sudo` alone
  }
}

const argsOf = (source: string, words: readonly ShellNode[]): Arg[] =>
  words.map((node) => ({ node, value: wordValue(source, node) }));

const home = String.raw`(?:~|\$\{?HOME\}?|\$\{?USERPROFILE\}?|/(?:home|Users)/[^/]+|/root)`;
/** A path to a credential store, as a whole word (no spaces: a sentence mentioning `.ssh/` is not a path). */
const credentialPath = new RegExp(
  String.raw`^(?:[\w.~\${}/-]*/)?(?:` +
    [
      String.raw`\.ssh(?:/\S*)?`,
      String.raw`id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?`,
      String.raw`\.aws(?:/(?:credentials|config|sso/\S*))?/?`,
      String.raw`\.(?:gnupg|azure)(?:/\S*)?`,
      String.raw`\.(?:netrc|npmrc|pypirc|git-credentials|pgpass)`,
      String.raw`\.env(?:\.(?!example$|sample$|template$|dist$)[\w-]+)?`,
      String.raw`\.kube/config|\.docker/config\.json|\.config/(?:gh|gcloud|hub)(?:/\S*)?`,
      String.raw`\.claude/\.credentials\.json|Library/Keychains(?:/\S*)?|\.password-store(?:/\S*)?`,
      String.raw`/etc/shadow|/proc/(?:self|\d+|\$\$)/environ`,
    ].join('|') +
    ')$',
);
const homeCredential = new RegExp(String.raw`^${home}/\.(?:ssh|aws|gnupg|kube|docker|azure)\b`);
/** `@~/.ssh/id_rsa`, `-F f=@x`, `--data-binary=@x`: the path part. */
const pathPart = (value: string): string => value.replace(/^--?[\w-]+=/, '').replace(/^[\w-]*=?[@<]/, '');

export const isCredentialPath = (value: string): boolean => {
  const path = pathPart(value);
  return !/\s/.test(path) && (credentialPath.test(path) || homeCredential.test(path));
};

// Commands whose arguments are messages or patterns, never files read.
const noReads = new Set(['echo', 'printf', 'test', '[', ':', 'true', 'false', 'logger', 'notify-send', 'osascript']);
const patternFirst = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'sed', 'awk', 'gawk', 'jq', 'yq', 'perl']);

/** Arguments that name files (a grep pattern, a sed or awk program, a jq filter are not). */
function fileArgs(simple: Simple): readonly Arg[] {
  if (simple.name === null || noReads.has(simple.name)) return [];
  if (!patternFirst.has(simple.name)) return simple.args;
  const explicit = simple.args.some((arg) => /^(?:-e|--regexp|-f|--file|--expression)(?:=|$)/.test(arg.value));
  let skipped = explicit;
  return simple.args.filter((arg, i) => {
    const previous = simple.args[i - 1]?.value ?? '';
    if (/^(?:-e|--regexp|--expression)$/.test(previous)) return false;
    if (arg.value.startsWith('-')) return false;
    if (!skipped) {
      skipped = true;
      return false;
    }
    return true;
  });
}

// Environment variables that hold credentials; `$FIRST_TOKEN` or `$MAX_TOKENS` do not.
const secretVariable =
  /^(?!CLAUDE_PLUGIN_OPTION_)(?:\w*(?:SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\w*|\w*(?:ACCESS|AUTH|API|BEARER|OAUTH|REFRESH|SESSION|BOT|PERSONAL_ACCESS|CI_JOB|RUNTIME)_TOKEN|(?:GITHUB|GH|GITLAB|GL|NPM|PYPI|SLACK|HF|HUGGING_FACE|HUGGINGFACE|DISCORD|TELEGRAM|CLOUDFLARE|CF|DIGITALOCEAN|DO|VERCEL|NETLIFY|HEROKU|DOCKER|DOCKERHUB|CODECOV|SENTRY|CIRCLE|TRAVIS|LINEAR|NOTION|OPENAI|ANTHROPIC|CLAUDE_CODE_OAUTH|VAULT|CONSUL|NOMAD|TF|TFE|ATLAS|FIREBASE|SUPABASE|STRIPE|TWILIO|SENDGRID|MAILGUN|AZURE|GOOGLE|GCP|AWS)_\w*TOKEN)$/;

export const secretVariables = (node: ShellNode, source: string): string[] =>
  nodesWhere(node, (n) => n.type === 'variable_name' && secretVariable.test(source.slice(n.start, n.end))).map((n) =>
    source.slice(n.start, n.end),
  );

const keychain = (simple: Simple): boolean => {
  const [first, second] = simple.args.map((arg) => arg.value);
  return (
    (simple.name === 'security' &&
      /^(?:find-generic-password|find-internet-password|dump-keychain)$/.test(first ?? '')) ||
    (simple.name === 'secret-tool' && first === 'lookup') ||
    (simple.name === 'gh' && first === 'auth' && second === 'token') ||
    (simple.name === 'printenv' && simple.args.length === 0) ||
    (simple.name === 'env' && simple.args.length === 0)
  );
};

/** Credential reads by a command: a credential file among its file arguments, a secret variable, a keychain. */
export function credentialRead(source: string, simple: Simple): Verdict | null {
  if (keychain(simple)) return { id: 'hooks-credential-access', what: 'reads credentials or the environment' };
  const file = fileArgs(simple).find((arg) => isCredentialPath(arg.value));
  if (file) return { id: 'hooks-credential-access', what: `reads the credential file ${file.value}` };
  const variables = simple.args.flatMap((arg) => secretVariables(arg.node, source));
  if (variables.length > 0) return { id: 'hooks-credential-access', what: `uses the secret $${variables[0]}` };
  return null;
}

const local = (value: string): boolean => {
  const hosts = urlHosts(value);
  if (hosts.length > 0) return hosts.every(isLoopback);
  return /^(?:localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0)(?::\d+)?(?:\/|$)/i.test(value);
};

/** A curl or wget option's value: `-d x`, `-dx`, `--data=x`, `--data x`; null when absent. */
function optionValues(args: readonly Arg[], short: string, long: RegExp): Arg[] {
  const values: Arg[] = [];
  args.forEach((arg, i) => {
    const next = args[i + 1];
    const longMatch = /^(--[\w-]+)(?:=(.*))?$/s.exec(arg.value);
    if (longMatch && long.test(longMatch[1]!)) {
      if (longMatch[2] !== undefined) values.push({ node: arg.node, value: longMatch[2] });
      else if (next) values.push(next);
      return;
    }
    const shortMatch = /^-([a-zA-Z]+)(.*)$/s.exec(arg.value);
    if (!shortMatch || arg.value.startsWith('--')) return;
    const at = shortMatch[1]!.search(new RegExp(`[${short}]`));
    if (at === -1) return;
    const rest = arg.value.slice(2 + at);
    if (rest !== '') values.push({ node: arg.node, value: rest });
    else if (next) values.push(next);
  });
  return values;
}

/** Data a command sends is local when it is computed, read from a file (`@x`, `<x`) or from stdin. */
const sendsLocal = (data: Arg): boolean => isDynamic(data.node) || /^@|=@|^<|=</.test(data.value);

const sent = (what: string): Verdict => ({ id: 'hooks-data-exfiltration', what: `sends ${what} off the machine` });

/** What a network command does: sends local data (HIGH), or only fetches or posts fixed text (MEDIUM). */
export function networkUse(source: string, simple: Simple): Verdict | null {
  const { name, args } = simple;
  if (name === null) return null;
  const targets = args.filter((arg) => !arg.value.startsWith('-'));
  if (name === 'curl' || name === 'wget' || name === 'aria2c' || name === 'xh' || name === 'http') {
    const urls = targets.filter((arg) =>
      /^(?:https?|ftps?|wss?):\/\/|^[\w.-]+\.[a-z]{2,}(?:[:/]|$)|^\$/i.test(arg.value),
    );
    if (urls.length > 0 && urls.every((arg) => local(arg.value))) return null;
    const data = [
      ...optionValues(args, 'dF', /^--(?:data(?:-\w+)?|json|form(?:-string)?|post-data|body-data)$/),
      ...optionValues(args, 'T', /^--(?:upload-file|post-file|body-file)$/).map((arg) => ({
        ...arg,
        value: `@${arg.value}`,
      })),
    ];
    if (data.some(sendsLocal)) return sent('local data');
    if (urls.some((arg) => nodesWhere(arg.node, (n) => n.type === 'command_substitution').length > 0))
      return sent('command output in a URL');
    if (data.length > 0) return { id: 'hooks-remote-fetch', what: 'posts a fixed message to the network' };
    return { id: 'hooks-remote-fetch', what: 'fetches from the network' };
  }
  if (name === 'git' && /^(?:clone|fetch|pull)$/.test(args[0]?.value ?? '')) {
    return targets.slice(1).every((arg) => local(arg.value) || !/[:/]/.test(arg.value))
      ? null
      : { id: 'hooks-remote-fetch', what: 'fetches from the network' };
  }
  if (/^(?:nc|ncat|netcat|socat|telnet)$/.test(name)) {
    const hosts = targets.filter((arg) => !/^\d+$/.test(arg.value));
    return hosts.length > 0 && hosts.every((arg) => local(arg.value)) ? null : sent('data through a raw socket');
  }
  if (/^(?:scp|sftp|rsync)$/.test(name)) {
    const remote = targets.some(
      (arg) => /^(?:[\w.-]+@)?[\w-]+(?:\.[\w-]+)*:(?!\/\/)/.test(arg.value) && !local(arg.value),
    );
    return remote ? sent('files') : null;
  }
  if (/^(?:dig|nslookup|host|ping)$/.test(name)) {
    const computed = args.some((arg) => nodesWhere(arg.node, (n) => n.type === 'command_substitution').length > 0);
    return computed ? sent('command output in a DNS query') : null;
  }
  if (name === 'powershell' || name === 'pwsh') {
    const risk = lineRisks(source.slice(simple.node.start, simple.node.end)).find(
      (r) => r.id !== 'hooks-credential-access',
    );
    return risk ? { id: risk.id, what: risk.what } : null;
  }
  return null;
}
