// What a network command sends, and where: the destinations it names (URLs, hosts, remotes), the local
// files and streams it uploads (`-` is its stdin), the data it posts, the values that authenticate it (an
// `Authorization` header, `-u user:token`), and its other words. hooks-shell-leaks.ts decides from this, and from
// where each value comes from, whether data or credentials leave the machine.
import type { Arg, Simple } from './hooks-commands.ts';

export type Send = Readonly<{
  tool: 'http' | 'socket' | 'copy' | 'dns' | 'git';
  destinations: readonly Arg[];
  files: readonly Arg[];
  data: readonly Arg[];
  auth: readonly Arg[];
  rest: readonly Arg[];
  /** It asks the server to change something (POST, PUT …) even without data. */
  posts: boolean;
}>;

type Option = Readonly<{ name: string; value: Arg | undefined }>;

/** Options (short ones bundled, `--x=v` or `--x v`) and operands, given which options take a value. */
function parse(args: readonly Arg[], short: string, long: RegExp): { options: Option[]; operands: Arg[] } {
  const options: Option[] = [];
  const operands: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    const longMatch = /^(--[\w.-]+)(?:=(.*))?$/s.exec(v);
    if (longMatch) {
      const name = longMatch[1]!;
      if (longMatch[2] !== undefined) options.push({ name, value: { node: arg.node, value: longMatch[2] } });
      else options.push({ name, value: long.test(name) ? args[++i] : undefined });
      continue;
    }
    if (!/^-[^-]/.test(v)) {
      operands.push(arg);
      continue;
    }
    for (let c = 1; c < v.length; c++) {
      const name = `-${v[c]!}`;
      if (!short.includes(v[c]!)) {
        options.push({ name, value: undefined });
        continue;
      }
      const rest = v.slice(c + 1);
      options.push({ name, value: rest !== '' ? { node: arg.node, value: rest } : args[++i] });
      break;
    }
  }
  return { options, operands };
}

const values = (options: readonly Option[], names: RegExp): Arg[] =>
  options.filter((o) => names.test(o.name) && o.value !== undefined).map((o) => o.value!);

/** A header that carries a credential: `Authorization:`, `X-Api-Key:`, `PRIVATE-TOKEN:` … */
const authHeader = /^\s*(?:(?:proxy-)?authorization|[\w-]*(?:api[-_]?key|token|auth|secret|password)[\w-]*)\s*:/i;
/** `-d @file`, `-F f=@file`, `-d <file`: the file part, as data read from a local file. */
const fileOf = (data: Arg): Arg | null => {
  const m = /^(?:[^=@<]*=)?[@<](.*)$/s.exec(data.value);
  return m ? { node: data.node, value: m[1]! } : null;
};
const isUrl = (value: string): boolean => /^(?:https?|ftps?|wss?|s?ftp|scp|tftp|dict|gopher):\/\//i.test(value);

const curlLong =
  /^--(?:data(?:-\w+)?|json|form(?:-string)?|header|proxy-header|user|upload-file|output(?:-dir)?|request|user-agent|referer|cookie(?:-jar)?|config|write-out|max-time|connect-timeout|retry(?:-delay|-max-time)?|proxy(?:-user)?|cert|key|cacert|capath|resolve|connect-to|oauth2-bearer|url|url-query|range|time-cond|continue-at|limit-rate|speed-(?:limit|time)|max-filesize|max-redirs|proto(?:-redir|-default)?|interface|dns-servers|(?:abstract-)?unix-socket|quote|mail-(?:from|rcpt)|variable|aws-sigv4|netrc-file|trace(?:-ascii)?|stderr|pass|socks\w*|preproxy|noproxy|pinnedpubkey|doh-url|local-port|cert-type|key-type|hsts|alt-svc|etag-(?:save|compare))$/;

function curl(args: readonly Arg[]): Send {
  const { options, operands } = parse(args, 'dFHuToXAebcKwmxUErYyzCQ', curlLong);
  const headers = values(options, /^(?:-H|--header|--proxy-header)$/);
  const data = values(options, /^(?:-d|--data(?:-\w+)?|--json|-F|--form(?:-string)?)$/);
  const fromFiles = data.map(fileOf).filter((f): f is Arg => f !== null);
  const method = values(options, /^(?:-X|--request)$/).map((a) => a.value.toUpperCase());
  return {
    tool: 'http',
    destinations: [...operands, ...values(options, /^--url$/)],
    files: [...values(options, /^(?:-T|--upload-file)$/), ...fromFiles],
    data: data.filter((d) => fileOf(d) === null),
    auth: [...headers.filter((h) => authHeader.test(h.value)), ...values(options, /^(?:-u|--user|--oauth2-bearer)$/)],
    rest: [
      ...headers.filter((h) => !authHeader.test(h.value)),
      ...values(options, /^(?:-b|--cookie|-e|--referer|-A|--user-agent|--url-query)$/),
    ],
    posts: method.some((m) => /^(?:POST|PUT|PATCH|DELETE)$/.test(m)),
  };
}

const wgetLong =
  /^--(?:output-document|output-file|append-output|directory-prefix|execute|user-agent|tries|timeout|wait|quota|input-file|base|header|post-data|post-file|body-data|body-file|method|user|password|http-user|http-password|proxy-user|proxy-password|referer|load-cookies|save-cookies|ca-certificate|certificate|private-key|limit-rate|domains|include-directories|exclude-directories|level|bind-address|(?:dns|connect|read)-timeout)$/;

function wget(args: readonly Arg[]): Send {
  const { options, operands } = parse(args, 'OoaPeUtTwQiBDIXl', wgetLong);
  const headers = values(options, /^--header$/);
  return {
    tool: 'http',
    destinations: operands,
    files: values(options, /^--(?:post|body)-file$/),
    data: values(options, /^--(?:post|body)-data$/),
    auth: [...headers.filter((h) => authHeader.test(h.value)), ...values(options, /^--(?:http-)?(?:user|password)$/)],
    rest: [...headers.filter((h) => !authHeader.test(h.value)), ...values(options, /^(?:-U|--user-agent|--referer)$/)],
    posts: values(options, /^--method$/).some((m) => /^(?:POST|PUT|PATCH|DELETE)$/i.test(m.value)),
  };
}

/** httpie and xh: `http [METHOD] URL Header:v key=v key:=json field@file`. */
function httpie(args: readonly Arg[]): Send {
  const { options, operands } = parse(args, 'aAo', /^--(?:auth|auth-type|output|session|verify|cert|cert-key)$/);
  const method = operands[0] && /^[A-Z]+$/.test(operands[0].value) ? operands[0] : undefined;
  const rest = operands.filter((o) => o !== method);
  const [url, ...items] = rest;
  const header = (i: Arg) => /^[\w-]+:(?!=)/.test(i.value);
  return {
    tool: 'http',
    destinations: url ? [url] : [],
    files: items.filter((i) => /^[^=:]*@/.test(i.value)).map((i) => ({ ...i, value: i.value.replace(/^[^@]*@/, '') })),
    data: items.filter((i) => /^[^:@]*:?=(?!=)/.test(i.value)),
    auth: [...items.filter((i) => header(i) && authHeader.test(i.value)), ...values(options, /^(?:-a|--auth)$/)],
    rest: items.filter((i) => (header(i) && !authHeader.test(i.value)) || /==/.test(i.value)),
    posts: method !== undefined && /^(?:POST|PUT|PATCH|DELETE)$/.test(method.value),
  };
}

const none: Pick<Send, 'files' | 'data' | 'auth' | 'rest'> = { files: [], data: [], auth: [], rest: [] };
const stdin = (simple: Simple): Arg => ({ node: simple.node, value: '-' });

/** `"${args[@]}"`: options kept in an array, not a destination. */
const listed = (arg: Arg): boolean => /^\$\{\w+\[[@*]\]\}$/.test(arg.value);

/** What a network command sends and where, or null for a command that is not one. */
export function sendOf(simple: Simple): Send | null {
  const send = sendOfCommand(simple);
  if (send === null || !send.destinations.some(listed)) return send;
  return {
    ...send,
    destinations: send.destinations.filter((d) => !listed(d)),
    rest: [...send.rest, ...send.destinations.filter(listed)],
  };
}

function sendOfCommand(simple: Simple): Send | null {
  const { name, args } = simple;
  if (name === 'curl') return curl(args);
  if (name === 'wget' || name === 'wget2') return wget(args);
  if (name === 'http' || name === 'https' || name === 'xh' || name === 'xhs') return httpie(args);
  if (name === 'aria2c' || name === 'fetch' || name === 'lwp-download')
    return { tool: 'http', destinations: args.filter((a) => isUrl(a.value)), ...none, posts: false };
  if (name === 'nc' || name === 'ncat' || name === 'netcat' || name === 'telnet') {
    const { options, operands } = parse(args, 'pswqiIxXOTVec', /^--(?:source|wait|proxy|sh-exec|exec)$/);
    const probe = options.some((o) => o.name === '-z' || o.name === '-l' || o.name === '--listen');
    return {
      tool: 'socket',
      destinations: operands.slice(0, 1),
      ...none,
      files: probe ? [] : [stdin(simple)],
      posts: !probe,
    };
  }
  if (name === 'socat') {
    const addresses = args.filter((a) => /^(?:tcp|udp|openssl|ssl|sctp)[\w-]*:/i.test(a.value));
    const destinations = addresses.map((a) => ({ node: a.node, value: a.value.replace(/^[\w-]+:/, '') }));
    return { tool: 'socket', destinations, ...none, files: [stdin(simple)], posts: true };
  }
  if (name === 'openssl' && args[0]?.value === 's_client') {
    const connect = args.findIndex((a) => a.value === '-connect');
    const target = connect === -1 ? undefined : args[connect + 1];
    return { tool: 'socket', destinations: target ? [target] : [], ...none, files: [stdin(simple)], posts: true };
  }
  if (name === 'scp' || name === 'sftp' || name === 'rsync') {
    const { operands } = parse(
      args,
      name === 'rsync' ? 'eBfT' : 'cFiJloPS',
      /^--(?:rsh|exclude|include|filter|files-from|rsync-path|password-file|port|bwlimit|chown|chmod|temp-dir|partial-dir|backup-dir|log-file)$/,
    );
    const remote = (a: Arg) =>
      /^(?:[\w.-]+@)?[\w.-]+:(?!\/\/)/.test(a.value) || /^(?:scp|sftp|rsync):\/\//.test(a.value);
    const last = operands[operands.length - 1];
    // Only copies towards a remote send: the last operand is where files go.
    const sends = last !== undefined && remote(last);
    return {
      tool: 'copy',
      destinations: sends ? [last] : [],
      ...none,
      files: sends ? operands.slice(0, -1).filter((a) => !remote(a)) : [],
      posts: sends,
    };
  }
  if (
    name === 'dig' ||
    name === 'nslookup' ||
    name === 'host' ||
    name === 'ping' ||
    name === 'drill' ||
    name === 'kdig'
  ) {
    const names = args.filter((a) => !/^[-+@]/.test(a.value));
    return { tool: 'dns', destinations: names, ...none, posts: false };
  }
  if (name === 'git' && /^(?:push|clone|fetch|pull|ls-remote)$/.test(args[0]?.value ?? '')) {
    const { operands } = parse(
      args.slice(1),
      'obcju',
      /^--(?:origin|branch|depth|config|upload-pack|receive-pack|repo|reference|separate-git-dir|template|jobs|filter|shallow-since|shallow-exclude|push-option|server-option|exec)$/,
    );
    const push = args[0]!.value === 'push';
    const repository: Arg = { node: simple.node, value: '.' };
    return { tool: 'git', destinations: operands.slice(0, 1), ...none, files: push ? [repository] : [], posts: push };
  }
  return null;
}
