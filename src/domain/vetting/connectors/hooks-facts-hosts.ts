// The hosts a network program is given on a shell command line, for the capability inventory: the URLs
// of curl and wget, the remote of a git clone or fetch, the host of nc, socat, ssh, scp and rsync, the
// names dig, nslookup and host resolve, and the host of a `/dev/tcp/HOST/PORT` redirect. Only hosts
// written in the script count (a variable the script sets once to a fixed word is read as that word);
// a host the shell builds at run time is the placeholder `(computed)`. This machine (localhost,
// 127.0.0.1, ::1) is not a host the plugin contacts.
import { isLoopback } from './hooks-lines.ts';

/** What stands for a host (or a program) the script computes when it runs. */
export const computed = '(computed)';

const runtime = /[$`]/;
const scheme = /^[a-z][\w+.-]*:\/\//i;
/** `host.tld`, `host.tld:443`, `host.tld/path`, `user@host.tld`. */
const hostLike = /^(?:[^\s@/]+@)?((?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]+|localhost)(?::\d+)?(?:[/?#]|$)/;
/** `[user@]host:path` as scp, rsync and git write a remote (not a URL: no `//` after the colon). */
const scpLike = /^(?:[^\s@/:]+@)?(\[[^\]]+\]|[^\s@/:]+):(?!\/\/)/;

/** The host of an authority (`user@host:port`); the placeholder when any of it is computed. */
function hostOfAuthority(authority: string): string | null {
  if (runtime.test(authority)) return computed;
  const host = authority
    .replace(/^.*@/, '')
    .replace(/^(\[[^\]]*\]).*$|:\d*$/, '$1')
    .toLowerCase();
  if (host === '' || isLoopback(host) || host === '[::1]') return null;
  return host;
}

/** The host a URL names (`https://h/…`, `ssh://git@h/…`), or null when the word is no URL. */
export function urlHost(value: string): string | null {
  if (scheme.test(value)) {
    if (/^file:/i.test(value)) return null;
    const rest = value.replace(scheme, '');
    return hostOfAuthority(/^[^/?#]*/.exec(rest)![0]);
  }
  return null;
}

/** What a word given to a URL-taking program names: a URL, a bare `host.tld/…`, or something computed. */
function targetHost(value: string, bare: boolean): string | null {
  if (value === '') return null;
  if (/^[$`]/.test(value)) return computed;
  if (scheme.test(value)) return urlHost(value);
  const match = bare ? hostLike.exec(value) : null;
  return match ? hostOfAuthority(match[1]!) : null;
}

/** The operands of a command: options and the values of the options that take one left out. */
export function operands(
  args: readonly string[],
  shortWithValue: string,
  longWithValue: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      out.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      if (!arg.includes('=') && longWithValue.has(arg)) i++;
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // A group of short options (`-sSLo out`): the first one taking a value takes the rest of the word or the next.
      const letters = arg.slice(1);
      const at = [...letters].findIndex((letter) => shortWithValue.includes(letter));
      if (at !== -1 && at === letters.length - 1) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

const curlLong = new Set([
  '--data',
  '--data-raw',
  '--data-binary',
  '--data-urlencode',
  '--data-ascii',
  '--json',
  '--form',
  '--form-string',
  '--header',
  '--output',
  '--output-dir',
  '--user-agent',
  '--user',
  '--request',
  '--referer',
  '--cookie',
  '--cookie-jar',
  '--config',
  '--max-time',
  '--connect-timeout',
  '--retry',
  '--retry-delay',
  '--retry-max-time',
  '--write-out',
  '--upload-file',
  '--cert',
  '--key',
  '--cacert',
  '--range',
  '--dump-header',
  '--resolve',
  '--connect-to',
  '--limit-rate',
  '--oauth2-bearer',
]);
const wgetLong = new Set([
  '--output-document',
  '--output-file',
  '--append-output',
  '--directory-prefix',
  '--user-agent',
  '--header',
  '--post-data',
  '--post-file',
  '--body-data',
  '--body-file',
  '--method',
  '--user',
  '--password',
  '--tries',
  '--timeout',
  '--wait',
  '--input-file',
  '--referer',
  '--load-cookies',
  '--save-cookies',
  '--execute',
]);
const sshShort = 'bcDEeFIiJLlmOopQRSWw';
const none = new Set<string>();

const present = (hosts: readonly (string | null)[]): string[] => hosts.filter((h): h is string => h !== null);

/** A remote as scp, rsync and git write it (`git@github.com:o/r`, `host:path`), or a URL. */
const remoteHost = (value: string): string | null => {
  if (scheme.test(value)) return urlHost(value);
  const match = scpLike.exec(value);
  return match ? hostOfAuthority(match[1]!) : null;
};

/** The hosts one command contacts, from its name and its arguments (quotes removed, constants read). */
export function commandHosts(name: string, args: readonly string[]): string[] {
  switch (name) {
    case 'curl':
      return present(operands(args, 'AbcCdDeEFHKmoPQrtTuUwxXyYz', curlLong).map((a) => targetHost(a, true)));
    case 'wget':
      return present(operands(args, 'OoaPUetTwiBQlDXIAR', wgetLong).map((a) => targetHost(a, true)));
    case 'aria2c':
    case 'xh':
    case 'http':
    case 'https':
      return present(operands(args, 'odaH', none).map((a) => targetHost(a, name !== 'aria2c')));
    case 'git': {
      const words = operands(args, 'Cc', new Set(['--git-dir', '--work-tree', '--namespace']));
      const sub = words[0] ?? '';
      if (!/^(?:clone|fetch|pull|push|ls-remote|remote|submodule)$/.test(sub)) return [];
      return present(words.slice(1).map(remoteHost));
    }
    case 'nc':
    case 'ncat':
    case 'netcat':
    case 'telnet': {
      if (args.some((a) => /^-\w*l/.test(a) || a === '--listen')) return []; // listening, not contacting
      const [host] = operands(args, 'pswiqecxXITOV', new Set(['--exec', '--sh-exec', '--proxy']));
      return host === undefined || /^\d+$/.test(host) ? [] : present([targetHost(host, true) ?? hostOfAuthority(host)]);
    }
    case 'socat':
      return present(
        args.map((a) => {
          const m = /^(?:tcp|tcp4|tcp6|udp|udp4|udp6|sctp|openssl|ssl|proxy)(?:-connect|-sendto)?:([^:,]+)/i.exec(a);
          return m ? hostOfAuthority(m[1]!) : null;
        }),
      );
    case 'ssh':
    case 'sftp':
    case 'mosh': {
      const [target] = operands(args, name === 'sftp' ? 'BbcDFiJloPRSs' : sshShort, none);
      return target === undefined ? [] : present([urlHost(target) ?? hostOfAuthority(target.replace(/:.*$/, ''))]);
    }
    case 'scp':
    case 'rsync':
      return present(operands(args, name === 'scp' ? 'cFiJlPoS' : 'e', none).map(remoteHost));
    case 'dig':
    case 'nslookup':
    case 'host': {
      const words = operands(args, name === 'dig' ? 'bcfkpqtxy' : name === 'host' ? 'ctNRW' : '', none);
      const server = words.filter((w) => w.startsWith('@')).map((w) => hostOfAuthority(w.slice(1)));
      // Record types and classes (A, MX, IN) are not names; a name has a dot, or is computed.
      const named = words.filter(
        (w) => !w.startsWith('@') && !w.startsWith('+') && (w.includes('.') || runtime.test(w)),
      );
      return present([...named.map((w) => hostOfAuthority(w)), ...server]);
    }
    default:
      return [];
  }
}

/** The host of a `/dev/tcp/HOST/PORT` (or udp) path, or null when the path is not one. */
export function socketHost(path: string): string | null {
  const match = /^\/dev\/(?:tcp|udp)\/([^/]+)(?:\/|$)/.exec(path);
  return match ? hostOfAuthority(match[1]!) : null;
}
