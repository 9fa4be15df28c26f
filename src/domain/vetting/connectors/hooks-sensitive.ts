// Whose data a request carries, and whether a reviewer must see it leave: the environment, credential
// files and the hook's input always; a secret variable unless it goes where credentials go (a header
// named Authorization, `auth=`, a `?key=` query) as the key of the service it is named for or of a
// service the user configured; a keychain or `gh auth token` token used to authenticate. The host a URL
// names is read here too: `(computed)` when the script computes it, null for this machine.
import { computed, urlHost } from './hooks-facts-hosts.ts';
import { labelDetail, labelKind, textOf, type Label, type Value } from './hooks-flow.ts';
import { isLoopback } from './hooks-lines.ts';

/** A part of what a request carries; `auth` when it is where credentials go (a header, `auth=`). */
export type Part = Readonly<{ value: Value; auth?: boolean }>;

/** Keys of headers, fields and query parameters that authenticate a request (`Authorization`, `api_key`, `appkey`). */
const authName =
  /^(?:authorization|proxy-authorization|bearer|cookie|appid|app_?key|secret_?key|client_?secret|[\w-]*(?:[-_]|^)(?:key|token|secret|password|passwd|auth|credentials?))$/i;
/** `apiKey`, `adminToken`, `clientSecret`: the same words in camel case. */
const camelAuthName = /[a-z0-9](?:Key|Token|Secret|Password|Passwd|Auth|Credentials?)$/;
export const authKey = { test: (key: string): boolean => authName.test(key) || camelAuthName.test(key) };
/** A URL that carries a key in its query (`?key=…`, `&access_token=…`): what follows is a credential, not data. */
export const queryKey = /[?&](?:[\w-]*(?:key|token|secret|auth|sig|signature)|appid|code)=\u0001/i;

/** The host a URL (or a bare host name) names; `(computed)` when the script computes it; null for this machine. */
export function hostOf(target: Value | null): string | null {
  if (target === null) return computed;
  const start = textOf(target);
  if (start === undefined) return computed;
  const known = start.split('\u0001')[0]!;
  if (/^[a-z][\w+.-]*:\/\//i.test(known)) {
    const authority = /^[a-z][\w+.-]*:\/\/([^/?#]*)/i.exec(known)![1]!;
    // The host is known when the text after it is (`https://h/` + computed), or all of it is.
    if (target.str === undefined && !/[/?#]/.test(known.slice(known.indexOf('//') + 2))) return computed;
    const host = urlHost(`https://${authority}`);
    return host ?? (isLoopback(authority.replace(/:\d+$/, '')) ? null : computed);
  }
  if (target.str !== undefined && /^[\w.-]+$/.test(target.str))
    return isLoopback(target.str) ? null : target.str.toLowerCase();
  return computed;
}

/** What a variable's name calls a service, where its hosts say it otherwise (`GH_TOKEN` for github.com). */
const services: Readonly<Record<string, string>> = {
  gh: 'github',
  gl: 'gitlab',
  hf: 'huggingface',
  hugging: 'huggingface',
  aws: 'amazonaws',
  npm: 'npmjs',
  pypi: 'pypi',
  gcp: 'googleapis',
  google: 'googleapis',
  cf: 'cloudflare',
  do: 'digitalocean',
  az: 'azure',
  claude: 'anthropic',
};
/** Variables named for a well-known service: sent anywhere else, they are someone else's secret. */
const wellKnown =
  /^(?:AWS|GITHUB|GH|GITLAB|GL|ANTHROPIC|OPENAI|NPM|PYPI|SLACK|HF|HUGGING_?FACE|DISCORD|TELEGRAM|CLOUDFLARE|CF|VERCEL|NETLIFY|HEROKU|DOCKER|STRIPE|TWILIO|SENDGRID|AZURE|GOOGLE|GCP|CLAUDE_CODE|SSH|GPG)_/;
/** A variable named for a secret: one of its words says so (`NPM_TOKEN`, `DB_PASSWORD`, not `OAUTH_CLIENT_ID`). */
const secretWords = /^(?:KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|COOKIE|PRIVATE|PAT)$/;
const secretName = { test: (name: string): boolean => name.split('_').some((word) => secretWords.test(word)) };
const generic = new Set(['api', 'key', 'token', 'secret', 'access', 'auth', 'bot', 'client', 'oauth', 'bearer', 'pat']);
const twoLevelSuffix = /\.(?:co|com|net|org|gov|ac|edu)\.[a-z]{2}$/;

/** The label of a host its owner registered: `cerebras` of api.cerebras.ai, `evil` of npm.evil.example. */
function registered(host: string): string | null {
  const labels = host.split('.');
  const index = labels.length - (twoLevelSuffix.test(host) ? 3 : 2);
  return index >= 0 && /[a-z]/.test(host) ? labels[index]! : null;
}

/** Is a variable named for the service a host belongs to (`CEREBRAS_API_KEY` to api.cerebras.ai)? */
function namedFor(name: string, host: string | null): boolean {
  const owner = host === null || host === computed ? null : registered(host);
  if (owner === null) return false;
  return name
    .toLowerCase()
    .split('_')
    .filter((w) => w.length >= 2 && !generic.has(w))
    .some((word) => {
      const service = Object.hasOwn(services, word) ? services[word]! : word;
      return owner === service || (service === 'github' && owner === 'githubusercontent');
    });
}

/** Credential stores and the hosts of the service they are for. */
const ownService: readonly (readonly [RegExp, RegExp])[] = [
  [/\.claude\/\.credentials\.json|Claude Code-credentials/, /(?:^|\.)(?:anthropic\.com|claude\.ai|claude\.com)$/],
  [/\.config\/gh\b|gh auth token/, /(?:^|\.)(?:github\.com|githubusercontent\.com)$/],
  [/\.aws\b/, /(?:^|\.)amazonaws\.com$/],
  [/\.npmrc\b/, /(?:^|\.)npmjs\.(?:org|com)$/],
  [/\.pypirc\b/, /(?:^|\.)pypi\.org$/],
  [/\.docker\b/, /(?:^|\.)docker\.(?:io|com)$/],
];

/** Is a label data a reviewer must see leave the machine, where it goes as it goes? */
/** Where a request goes: its host, whether the user's environment sets its address, the plugin's own prefix. */
export type Where = Readonly<{ host: string | null; configured: boolean; own: string }>;

function sensitive(label: Label, auth: boolean, where: Where): boolean {
  const { host, configured } = where;
  const detail = labelDetail(label);
  switch (labelKind(label)) {
    case 'input':
      return true;
    case 'env':
      if (detail === '*') return true;
      // A variable named at run time: a client choosing its provider's key, unless it goes to a host the script names.
      if (detail === '?') return !auth && host !== computed;
      if (/^CLAUDE_PLUGIN_OPTION_/.test(detail) || !secretName.test(detail) || namedFor(detail, host)) return false;
      // A variable named for the plugin itself (`CLAUDE_MEM_TELEMETRY_KEY` in claude-mem) is its own setting.
      if (where.own !== '' && detail.startsWith(where.own) && !wellKnown.test(detail)) return false;
      // A key where credentials go is the API client's own, unless it is named for another service and
      // goes to a host the script names (`GITHUB_TOKEN` as the Authorization of a request to evil.example).
      return !auth || (wellKnown.test(detail) && !configured && host !== computed);
    case 'cred': {
      if (!auth) return true;
      const store = ownService.find(([pattern]) => pattern.test(detail));
      if (store) return host !== computed && host !== null && !store[1].test(host);
      // A token a program or the keychain gives, used to authenticate: the read itself is the finding.
      return /^(?:~|\/)/.test(detail);
    }
    default:
      return false;
  }
}

/** The sensitive labels of what a request carries, walking dict fields by key (a header named Authorization). */
export function carried(parts: readonly Part[], where: Where): Label[] {
  const out = new Set<Label>();
  eachLabel(
    parts.map((part) => [part.value, part.auth === true]),
    (label, auth) => {
      // `@` marks a label that sat where credentials go in text the script serialised.
      const plain = label.startsWith('@') ? label.slice(1) : label;
      if (sensitive(plain, auth || plain !== label, where)) out.add(plain);
    },
  );
  return [...out];
}

/**
 * Each label of values and of all they hold (each object once, in order), with whether it sits where
 * credentials go: given so (`auth`) or under a key that names them.
 */
function eachLabel(roots: readonly (readonly [Value, boolean])[], each: (label: Label, auth: boolean) => void): void {
  const seen = new Set<object>();
  const visit = (value: Value, auth: boolean): void => {
    for (const label of value.taint ?? []) each(label, auth);
    for (const obj of value.objs ?? []) {
      if (seen.has(obj)) continue;
      seen.add(obj);
      for (const [key, field] of obj.fields) visit(field, auth || authKey.test(key));
      for (const item of obj.items ?? []) visit(item, auth);
      visit(obj.rest, auth);
    }
  };
  for (const [value, auth] of roots) visit(value, auth);
}

/** Fields of a hook's input that say which event or session it is, not what the user wrote or a tool did. */
const metadata = new Set([
  'session_id',
  'hook_event_name',
  'tool_name',
  'tool_use_id',
  'permission_mode',
  'stop_hook_active',
  'source',
  'matcher',
  'trigger',
  'reason',
  'agent_id',
  'agent_type',
  'notification_type',
  'sessionId',
  'hookEventName',
  'toolName',
]);
export const metadataKey = (key: string): boolean => metadata.has(key);

/** The labels without the hook's input (a metadata field of it). */
export const withoutInput = (labels: readonly Label[] | undefined): readonly Label[] | undefined =>
  labels?.filter((label) => labelKind(label) !== 'input');

/**
 * A value as text a request may carry (`JSON.stringify(x)`, `json.dumps(x)`, `str(x)`): its labels, those
 * found where credentials go (`{"api_key": …}`) marked `@` so a request that carries the text still tells
 * them from the rest.
 */
export function serialised(value: Value): Value {
  if (value.str !== undefined) return value;
  if (value.num !== undefined) return { str: String(value.num) };
  const labels = new Set<Label>();
  eachLabel([[value, false]], (label, auth) =>
    labels.add(auth && /^(?:env|cred|input):/.test(label) ? `@${label}` : label),
  );
  return labels.size > 0 ? { taint: [...labels] } : {};
}
