// What one simple command of a hook script does, read from its parsed words: the program that really
// runs and the credentials it reads. Only arguments a command is given count: a string an `echo` prints,
// a pattern `grep` matches, a `case` pattern or a `[[ =~ ]]` regex is not a read. What a network command
// sends, and where, is hooks-shell-sends.ts's.
import { childOf, commandName, isDynamic, nodesWhere, textOf, wordValue, type ShellNode } from './hooks-syntax.ts';

export type Arg = Readonly<{ node: ShellNode; value: string }>;
/** A command with its wrappers (`sudo`, `env X=1`, `timeout 5` …) taken off: what really runs. */
export type Simple = Readonly<{ node: ShellNode; name: string | null; args: readonly Arg[] }>;
/**
 * A credential read: `store` for the stores in the home directory, the keychain and the like (always a
 * risk), `ambient` for what a program is given to use (a secret variable, the environment, the project's
 * `.env`), a risk when it leaves the machine.
 */
export type Verdict = Readonly<{ id: string; what: string; kind?: 'store' | 'ambient' }>;

export const shells = new Set(['sh', 'bash', 'zsh', 'ksh', 'dash', 'ash', 'fish', 'csh', 'tcsh', 'mksh', 'busybox']);
export const fetchers = new Set(['curl', 'wget', 'aria2c', 'fetch', 'http', 'https', 'xh', 'lwp-download', 'wget2']);
const wrappers = new Set([
  ...['sudo', 'doas', 'command', 'builtin', 'exec', 'nohup', 'time', 'nice', 'stdbuf', 'env', 'busybox', 'setsid'],
  ...['ionice', 'chrt', 'taskset', 'unbuffer', 'xvfb-run'],
]);

/** A name bash finds by globbing (`/bin/b?sh`): computed, as a variable is. */
const globbed = (source: string, word: ShellNode): boolean =>
  word.type === 'command_name' &&
  word.children.some((c) => c.type === 'word' && /(?<!\\)[?*]|(?<!\\)\[[^\]\s]+\]/.test(textOf(source, c))) &&
  textOf(source, word).length > 1;

/** The command node's name and arguments, wrappers skipped; a computed name (`$c`, `$(…)`, a glob) is null. */
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
    if (isDynamic(word) || globbed(source, word)) return { node, name: null, args: argsOf(source, words.slice(k + 1)) };
    const name = commandName(wordValue(source, word));
    // `command -v curl` looks a name up; it runs nothing.
    const lookup = name === 'command' && /^-[vV]$/.test(wordValue(source, words[k + 1] ?? word));
    if ((!wrappers.has(name) && name !== 'timeout') || lookup) {
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
      String.raw`\.(?:bash|zsh|sh)_history|\.local/share/fish/fish_history`,
    ].join('|') +
    ')$',
);
const homeCredential = new RegExp(String.raw`^${home}/\.(?:ssh|aws|gnupg|kube|docker|azure)\b`);
/** `@~/.ssh/id_rsa`, `-F f=@x`, `--data-binary=@x`: the path part. */
const pathPart = (value: string): string => value.replace(/^--?[\w-]+=/, '').replace(/^[\w-]*=?[@<]/, '');

export const isCredentialPath = (value: string): boolean => {
  const path = pathPart(value);
  // A public key or the known hosts are meant to be shown.
  if (/\.pub$|\/known_hosts2?$/.test(path)) return false;
  return !/\s/.test(path) && (credentialPath.test(path) || homeCredential.test(path));
};

// Commands whose arguments are messages or patterns, never files read.
const noReads = new Set(['echo', 'printf', 'test', '[', ':', 'true', 'false', 'logger', 'notify-send', 'osascript']);
const patternFirst = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'sed', 'awk', 'gawk', 'jq', 'yq', 'perl']);

/** Arguments that name files (a grep pattern, a sed or awk program, a jq filter are not). */
export function fileArgs(simple: Simple): readonly Arg[] {
  if (simple.name === null || noReads.has(simple.name)) return [];
  if (simple.name === 'jq' || simple.name === 'yq') return jqFiles(simple.args);
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

/** jq's files: after its filter, and those `--slurpfile`/`--rawfile` name; `--arg n v` gives values. */
function jqFiles(args: readonly Arg[]): Arg[] {
  const files: Arg[] = [];
  let filter = args.some((a) => /^(?:-f|--from-file)$/.test(a.value));
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (/^--(?:arg|argjson)$/.test(v)) i += 2;
    else if (/^--(?:slurpfile|rawfile)$/.test(v)) {
      if (args[i + 2]) files.push(args[i + 2]!);
      i += 2;
    } else if (/^--(?:args|jsonargs)$/.test(v)) break;
    else if (/^(?:-f|--from-file)$/.test(v) && args[i + 1]) files.push(args[++i]!);
    else if (v.startsWith('-') && v !== '-') continue;
    else if (!filter) filter = true;
    else files.push(args[i]!);
  }
  return files;
}

// Environment variables that hold credentials; `$FIRST_TOKEN` or `$MAX_TOKENS` do not.
const secretVariable =
  /^(?!CLAUDE_PLUGIN_OPTION_)(?:\w*(?:SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\w*|\w*(?:ACCESS|AUTH|API|BEARER|OAUTH|REFRESH|SESSION|BOT|PERSONAL_ACCESS|CI_JOB|RUNTIME)_TOKEN|(?:GITHUB|GH|GITLAB|GL|NPM|PYPI|SLACK|HF|HUGGING_FACE|HUGGINGFACE|DISCORD|TELEGRAM|CLOUDFLARE|CF|DIGITALOCEAN|DO|VERCEL|NETLIFY|HEROKU|DOCKER|DOCKERHUB|CODECOV|SENTRY|CIRCLE|TRAVIS|LINEAR|NOTION|OPENAI|ANTHROPIC|CLAUDE_CODE_OAUTH|VAULT|CONSUL|NOMAD|TF|TFE|ATLAS|FIREBASE|SUPABASE|STRIPE|TWILIO|SENDGRID|MAILGUN|AZURE|GOOGLE|GCP|AWS)_\w*TOKEN)$/;

export const secretVariables = (node: ShellNode, source: string): string[] =>
  nodesWhere(node, (n) => n.type === 'variable_name' && secretVariable.test(source.slice(n.start, n.end))).map((n) =>
    source.slice(n.start, n.end),
  );

/** What a command reads from a secret store, in a message: the keychain, the keyring, the GitHub CLI's token. */
const keychain = (simple: Simple): string | null => {
  const [first, second] = simple.args.map((arg) => arg.value);
  if (
    simple.name === 'security' &&
    /^(?:find-generic-password|find-internet-password|dump-keychain)$/.test(first ?? '')
  )
    return 'credentials from the keychain';
  if (simple.name === 'secret-tool' && first === 'lookup') return 'a secret from the keyring (secret-tool lookup)';
  if (simple.name === 'gh' && first === 'auth' && second === 'token') return "the GitHub CLI's token (gh auth token)";
  return null;
};

/** The whole environment: `env` or `printenv` alone, `export -p`, `declare -x`, `set` alone. */
export const dumpsEnvironment = (simple: Simple): boolean =>
  ((simple.name === 'printenv' || simple.name === 'env' || simple.name === 'set') && simple.args.length === 0) ||
  (simple.name === 'export' && simple.args.some((a) => a.value === '-p')) ||
  (simple.name === 'declare' && simple.args.some((a) => /^-\w*[xp]/.test(a.value)));

/** The project's `.env` (a path not in the home directory): configuration the project gives its tools. */
const projectEnv = (value: string): boolean =>
  /(?:^|\/)\.env(?:\.[\w-]+)?$/.test(value) && !new RegExp(String.raw`^${home}/\.env`).test(pathPart(value));

// Commands that only look at a value (`[ -z "$TOKEN" ]`): no read of what it holds.
const looksOnly = new Set(['test', '[', ':', 'true', 'false', 'unset', 'export', 'readonly', 'local', 'declare']);

/**
 * Credential reads by a command: a credential file among its file arguments, a secret variable, the
 * keychain, the environment. Variables the script assigns fixed text (`constants`) are its own, not
 * secrets it was given.
 */
export function credentialRead(
  source: string,
  simple: Simple,
  constants: ReadonlyMap<string, string> = new Map(),
): Verdict | null {
  const store = keychain(simple);
  if (store !== null) return { id: 'hooks-credential-access', what: `reads ${store}`, kind: 'store' };
  if (dumpsEnvironment(simple))
    return { id: 'hooks-credential-access', what: 'reads the whole environment', kind: 'ambient' };
  const file = fileArgs(simple).find((arg) => isCredentialPath(arg.value));
  if (file)
    return {
      id: 'hooks-credential-access',
      what: `reads the credential file ${file.value}`,
      kind: projectEnv(file.value) ? 'ambient' : 'store',
    };
  if (simple.name !== null && looksOnly.has(simple.name)) return null;
  const named = simple.name === 'printenv' ? simple.args.find((a) => secretVariable.test(a.value)) : undefined;
  if (named) return { id: 'hooks-credential-access', what: `uses the secret $${named.value}`, kind: 'ambient' };
  const variables = simple.args
    .flatMap((arg) => secretVariables(arg.node, source))
    .filter((name) => !constants.has(name));
  if (variables.length > 0)
    return { id: 'hooks-credential-access', what: `uses the secret $${variables[0]}`, kind: 'ambient' };
  return null;
}
