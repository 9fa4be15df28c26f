// What a word of a script can stand for once the shell expands it, as far as the script says: a variable
// assigned fixed text, the default of `${X:-default}`, a variable nobody in the script assigns (set by
// the user's environment: configured), or something computed at run time (unknown). Used to tell where
// data goes: `"${N8N_BASE_URL}/webhook"` after `N8N_BASE_URL="${N8N_BASE_URL:-http://localhost:5678}"`
// goes to this machine unless the user says otherwise.
import { isLoopback } from './hooks-lines.ts';
import type { Names } from './hooks-indirection.ts';
import { textOf, type ShellNode } from './hooks-syntax.ts';

/** What the script does not say: a part computed at run time, or one the user's environment sets. */
const unknownPart = '\u0000';
const configuredPart = '\u0001';

const expansionTypes = new Set(['simple_expansion', 'expansion', 'command_substitution', 'process_substitution']);
const special = /^(?:[@*#?$!-]|BASH_SOURCE|RANDOM|REPLY|LINENO)$/;
const maxReadings = 8;

/** The expansions of a word that are not inside another expansion, in order. */
function outermost(node: ShellNode, into: ShellNode[] = []): ShellNode[] {
  if (expansionTypes.has(node.type)) into.push(node);
  else for (const child of node.children) outermost(child, into);
  return into;
}

/** `$1` inside a function: the first word of each call of it the script makes. */
function positionalReadings(at: ShellNode, index: number, names: Names, seen: ReadonlySet<string>): string[] {
  const fn = names.functions.filter((f) => f.start <= at.start && at.end <= f.end).sort((a, b) => b.start - a.start)[0];
  const given = fn?.calls.map((call) => call[index - 1]) ?? [];
  if (given.length === 0 || given.some((word) => word === undefined)) return [unknownPart];
  return given.flatMap((word) => readingsOf(names.source, word!, names, seen)).slice(0, maxReadings);
}

function variableReadings(at: ShellNode, name: string, names: Names, seen: ReadonlySet<string>): string[] {
  if (/^[1-9]$/.test(name)) return positionalReadings(at, Number(name), names, new Set([...seen, name]));
  if (special.test(name) || /^\d+$/.test(name) || names.computed.has(name)) return [unknownPart];
  const constant = names.constants.get(name);
  if (constant !== undefined) return [constant];
  const values = names.assigned.get(name);
  // Never assigned here: the user's environment sets it, unless a sourced file of the plugin may.
  if (values === undefined || seen.has(name)) return [names.sourcesFiles ? unknownPart : configuredPart];
  const next = new Set([...seen, name]);
  const readings = values.flatMap((value) => readingsOf(names.source, value, names, next)).slice(0, maxReadings);
  // Only ever assigned '': a placeholder the user fills in.
  return readings.every((r) => r === '') ? [configuredPart] : readings;
}

function expansionReadings(source: string, node: ShellNode, names: Names, seen: ReadonlySet<string>): string[] {
  const text = textOf(source, node);
  // `$(command -v jq || echo jq)`: the program it looks up.
  const lookup =
    /^\$\(\s*(?:command\s+-v|which|type\s+-P)\s+([\w.+-]+)\s*(?:\|\|\s*(?:echo\s+)?["']?\1["']?\s*)?\)$/.exec(text);
  if (lookup) return [lookup[1]!];
  if (node.type === 'command_substitution' || node.type === 'process_substitution') return [unknownPart];
  const m = /^\$\{?([A-Za-z_]\w*|[0-9@*#?$!-])(?:(:?[-=])(.*))?\}?$/s.exec(text);
  if (m === null || text.startsWith('${!') || source !== names.source) return [unknownPart];
  const readings = variableReadings(node, m[1]!, names, seen);
  if (m[2] === undefined) return readings;
  // `${X:-default}`: what the script says when the environment does not set X.
  const word = node.children.find((child) => child.type !== 'variable_name');
  if (!readings.every((r) => r === configuredPart)) return readings;
  return word ? readingsOf(source, word, names, seen) : [m[3] ?? ''];
}

/** The readings of a word, quotes removed, at most a few; what the script does not say is marked. */
export function readingsOf(
  source: string,
  node: ShellNode,
  names: Names,
  seen: ReadonlySet<string> = new Set(),
): string[] {
  let readings = [''];
  let at = node.start;
  const append = (parts: readonly string[]) => {
    readings = readings.flatMap((r) => parts.map((p) => r + p)).slice(0, maxReadings);
  };
  for (const expansion of outermost(node)) {
    append([source.slice(at, expansion.start)]);
    append(expansionReadings(source, expansion, names, seen));
    at = expansion.end;
  }
  append([source.slice(at, node.end)]);
  return readings.map((r) => r.replace(/["']/g, ''));
}

/** Where one destination word sends: hosts it names, or that the user (configured) or run time (unknown) decides. */
export type Place = Readonly<{ hosts: readonly string[]; configured: boolean; unknown: boolean }>;

/** The host part of a URL, `host:port`, `user@host:path`. */
const hostPart = (text: string): string => {
  const rest = text.replace(/^[a-z][\w+.-]*:\/\//i, '');
  return rest
    .split(/[/?#]/)[0]!
    .replace(/^[^@]*@/, '')
    .replace(/:[^:]*$/, '');
};

/** The hosts a destination word names (a URL, `host`, `host:port`, `user@host:path`), after expansion. */
export function placeOf(source: string, node: ShellNode, names: Names): Place {
  const hosts: string[] = [];
  let configured = false;
  let unknown = false;
  for (const reading of readingsOf(source, node, names)) {
    const host = hostPart(reading.trim());
    if (host.includes(unknownPart) || host === '') unknown = true;
    else if (host.includes(configuredPart)) configured = true;
    else hosts.push(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }
  return { hosts, configured, unknown };
}

/** A host on this machine, or a name with no dot (a container or LAN name, never an internet host). */
export const isLocalHost = (host: string): boolean => isLoopback(host) || /^[\w-]+$/.test(host);

/** Is every reading of these destinations this machine? */
export const allLocal = (places: readonly Place[]): boolean =>
  places.length > 0 &&
  places.every((p) => !p.unknown && !p.configured && p.hosts.length > 0 && p.hosts.every(isLocalHost));

/** The registrable domain of a host (`api.cerebras.ai` is `cerebras.ai`, `x.co.uk` is `x.co.uk`). */
export function siteOf(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  if (labels.length < 2) return host;
  const second = labels[labels.length - 2]!;
  const shared =
    labels.length > 2 &&
    labels[labels.length - 1]!.length === 2 &&
    /^(?:co|com|org|net|gov|ac|edu|or|ne)$/.test(second);
  return labels.slice(shared ? -3 : -2).join('.');
}

/**
 * Services a secret variable may be named for (a name and its aliases), and the domains they answer on,
 * each list written as words.
 */
const serviceDomains: Readonly<Record<string, string>> = {
  'github gh': 'github.com githubusercontent.com',
  'gitlab gl': 'gitlab.com',
  bitbucket: 'bitbucket.org atlassian.com',
  atlassian: 'atlassian.com atlassian.net',
  'jira confluence': 'atlassian.net',
  slack: 'slack.com',
  discord: 'discord.com',
  telegram: 'telegram.org',
  openai: 'openai.com',
  anthropic: 'anthropic.com',
  claude: 'anthropic.com claude.ai',
  cerebras: 'cerebras.ai',
  groq: 'groq.com',
  mistral: 'mistral.ai',
  cohere: 'cohere.com cohere.ai',
  together: 'together.xyz together.ai',
  fireworks: 'fireworks.ai',
  deepseek: 'deepseek.com',
  perplexity: 'perplexity.ai',
  openrouter: 'openrouter.ai',
  'hf huggingface': 'huggingface.co',
  replicate: 'replicate.com',
  'gemini google gcp': 'googleapis.com',
  aws: 'amazonaws.com',
  azure: 'azure.com microsoft.com windows.net',
  'cloudflare cf': 'cloudflare.com',
  vercel: 'vercel.com',
  netlify: 'netlify.com',
  heroku: 'heroku.com',
  digitalocean: 'digitalocean.com',
  stripe: 'stripe.com',
  twilio: 'twilio.com',
  sendgrid: 'sendgrid.com',
  mailgun: 'mailgun.net',
  notion: 'notion.com notion.so',
  linear: 'linear.app',
  sentry: 'sentry.io',
  'datadog dd': 'datadoghq.com datadoghq.eu',
  pagerduty: 'pagerduty.com',
  supabase: 'supabase.co supabase.com',
  firebase: 'googleapis.com firebaseio.com',
  figma: 'figma.com',
  airtable: 'airtable.com',
  hubspot: 'hubapi.com hubspot.com',
  zendesk: 'zendesk.com',
  shopify: 'shopify.com myshopify.com',
  npm: 'npmjs.org npmjs.com',
  pypi: 'pypi.org',
  'docker dockerhub': 'docker.com docker.io',
  codecov: 'codecov.io',
  'circle circleci': 'circleci.com',
  vault: '',
};
// A Map, not an object: a variable's words are the plugin author's (`$CONSTRUCTOR_KEY` names no service).
const services: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(serviceDomains).flatMap(([names, domains]) =>
    names.split(' ').map((name) => [name, domains === '' ? [] : domains.split(' ')] as const),
  ),
);

/** Is `host` the service a secret variable is named for (`$CEREBRAS_API_KEY` and api.cerebras.ai)? */
export function isServiceOf(variable: string, host: string): boolean {
  const site = siteOf(host);
  return variable
    .toLowerCase()
    .split('_')
    .some((word) => services.get(word)?.includes(site) === true);
}
