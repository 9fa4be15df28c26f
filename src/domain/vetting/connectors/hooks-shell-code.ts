// What turns text into code in a hook script: decoders whose output is hidden code, programs whose output
// comes from another machine (an HTTP client, a raw socket, a DNS TXT answer, a remote shell), programs
// that read their program from stdin (`sh`, `python3 -`, `awk '{system($0)}'`), and the code a script
// hands to `python -c`, `node -e`, `perl -e` or `ruby -e`, read for a fetch or a decode that it runs.
import { fetchers, shells, type Simple } from './hooks-commands.ts';
import type { Names } from './hooks-indirection.ts';

export const interpreters = /^(?:python[\d.]*|pythonw|node|nodejs|perl|ruby|php|deno|bun|pwsh|powershell|lua|tclsh)$/;
const awks = /^(?:awk|gawk|mawk|nawk)$/;
const compressors = /^(?:gzip|bzip2|xz|lzma|zstd|lz4|brotli|pigz)$/;
const decompressors = /^(?:gunzip|zcat|gzcat|bzcat|bunzip2|xzcat|unxz|unlzma|lzcat|zstdcat|unzstd|lz4cat|unpigz)$/;

/** `tr 'A-Za-z' 'N-ZA-Mn-za-m'`: a second set of shifted letter ranges or a spelled-out alphabet (not `tr a-z A-Z`). */
const rotates = (simple: Simple): boolean => {
  const [from, to] = simple.args.filter((a) => !a.value.startsWith('-')).map((a) => a.value.replace(/[[\]]/g, ''));
  if (from === undefined || to === undefined || !/[a-zA-Z]-[a-zA-Z]|[a-zA-Z]{10}/.test(from)) return false;
  const shifted = [...to.matchAll(/([a-zA-Z])-([a-zA-Z])/g)].some((m) => !/[aA]/.test(m[1]!) || !/[zZ]/.test(m[2]!));
  return shifted || /[a-zA-Z]{10}/.test(to);
};

/** Commands whose output is their input made readable: hidden code, once decoded. */
export const decoders = (simple: Simple): boolean => {
  const name = simple.name ?? '';
  const has = (test: RegExp) => simple.args.some((a) => test.test(a.value));
  return (
    (name === 'base64' && has(/^(?:-d|-D|--decode|-\w*d\w*)$/)) ||
    (name === 'openssl' && has(/^(?:-d|base64|-base64|-a)$/)) ||
    (name === 'xxd' && has(/^-r/)) ||
    /^(?:uudecode|base32|basenc|rev|ascii85)$/.test(name) ||
    decompressors.test(name) ||
    (compressors.test(name) && has(/^(?:-\w*d\w*|--decompress|--uncompress)$/)) ||
    (name === 'unzip' && has(/^-\w*p/)) ||
    // rot13 and friends: letters mapped to shifted letters, nothing deleted or squeezed
    (name === 'tr' && simple.args.every((a) => !/^-\w*[ds]/.test(a.value)) && rotates(simple)) ||
    // `printf '\x63\x75…'`, `echo -e '\143…'`: code spelled as escapes (colour codes are not piped to a shell)
    ((name === 'printf' || name === 'echo') && has(/\\(?:x[0-9a-f]{1,2}|[0-7]{3}|u[0-9a-f]{4})/i))
  );
};

const dumpers = /^(?:lynx|w3m|links|elinks|links2)$/;
const resolvers = /^(?:dig|nslookup|host|drill|kdig|delv)$/;

/** Does the command's output come from another machine (before any local host is ruled out)? */
export function fetchesRemote(simple: Simple): boolean {
  const name = simple.name ?? '';
  const has = (test: RegExp) => simple.args.some((a) => test.test(a.value));
  if (fetchers.has(name)) return true;
  if (dumpers.test(name)) return has(/^-(?:dump|source|mime_header)$/);
  // A socket's answer, a remote shell's output, `openssl s_client`'s stream.
  if (/^(?:nc|ncat|netcat|socat|telnet)$/.test(name)) return !has(/^-\w*z/);
  if (name === 'ssh') return simple.args.some((a) => !a.value.startsWith('-'));
  if (name === 'openssl') return simple.args[0]?.value === 's_client';
  // A TXT record is text the owner of the name chose.
  if (resolvers.test(name)) return has(/^(?:txt|TXT|-t\s*txt|-type=txt|-q=txt|-querytype=txt|any|ANY)$/i);
  if (name === 'git') return /^(?:show|cat-file|archive)$/.test(simple.args[0]?.value ?? '') && has(/^--remote/);
  return false;
}

// Inline code that runs what it reads on stdin: `perl -e 'eval join "", <STDIN>'`, `python3 -c "exec(sys.stdin.read())"`.
const readsStdin =
  /sys\.stdin|<STDIN>|<>|\$stdin|STDIN\.read|ARGF|readFileSync\(\s*(?:0|["']\/dev\/stdin)|process\.stdin|\/dev\/stdin|io\.read|Deno\.stdin|Bun\.stdin/;
const runsCode =
  /(?<![.\w])(?:exec|eval|compile)\s*\(|\beval\s+[\w$"'(]|new\s+Function\b|vm\.run\w*|runInThisContext|instance_eval|\bsystem\s*\(|os\.system|os\.popen|execSync|IO\.popen|\bqx\b|[(,]\s*eval\s*[),]/;

/** Does an interpreter invocation read its program from stdin (`sh`, `bash -s`, `python3 -`)? */
export function readsProgramFromStdin(simple: Simple, names: Names): boolean {
  const { name, args } = simple;
  if (name === null) {
    // `| $SHELL`, unless it is given its program inline (`"$PY" -c '…'`): then only code that runs its stdin.
    const inline = args.findIndex((arg) => /^-(?:c|e)$/.test(arg.value));
    const code = inline === -1 ? undefined : args[inline + 1]?.value;
    return (
      code === undefined ||
      (readsStdin.test(code) && runsCode.test(code)) ||
      /\$\(\s*cat\s*\)|\beval\b|\bsource\b|\bsh\b|\bbash\b/.test(code)
    );
  }
  if (names.consumers.has(name)) return true;
  // `… | xargs sh -c '{}'`: each line becomes code
  if (name === 'xargs') return args.some((a) => shells.has(a.value) || a.value === 'eval');
  if (name === 'source' || name === '.') return args[0]?.value === '/dev/stdin' || args[0]?.value === '/proc/self/fd/0';
  if (name === 'eval') return false;
  // `awk '{system($0)}'`, `awk '{print | "sh"}'`: each line run by a shell
  if (awks.test(name)) return args.some((a) => /\bsystem\s*\(|\|\s*"(?:\/bin\/)?(?:ba)?sh"/.test(a.value));
  if (!shells.has(name) && !interpreters.test(name) && name !== 'iex') return false;
  const inline = args.findIndex((arg) => /^-(?:\w*c|e|E|r|-command|-eval)$/i.test(arg.value) && arg.value !== '-');
  if (inline !== -1) {
    const code = args[inline + 1]?.value ?? '';
    return !shells.has(name) && readsStdin.test(code) && runsCode.test(code);
  }
  const program = args.find((arg) => !arg.value.startsWith('-') || arg.value === '-');
  return program === undefined || program.value === '-' || /^\/dev\/stdin$|^\/proc\/self\/fd\/0$/.test(program.value);
}

const fetchInCode =
  /\burlopen\s*\(|urllib\.request|\brequests\.(?:get|post)\s*\(|\bhttpx\.|http\.client|\bfetch\s*\(|\bhttps?\.(?:get|request)\s*\(|require\(\s*["'](?:node:)?https?["']\s*\)|from\s+["'](?:node:)?https?["']|\baxios\b|XMLHttpRequest|LWP::|HTTP::Tiny|Net::HTTP|open-uri|URI\.open|\bsocket\.|IO::Socket|Invoke-WebRequest|DownloadString|\bcurl\b|\bwget\b/;
const decodeInCode =
  /b64decode|b32decode|a85decode|\bbase64\.|Buffer\.from\([^)]*["'](?:base64|hex|base64url)["']|\batob\s*\(|decode_base64|unpack\(\s*["']m|unpack1\(\s*["']m|codecs\.decode|bytes\.fromhex|unhexlify|zlib\.decompress|gzip\.decompress|marshal\.loads|rot_?13|FromBase64String/;
const execInCode =
  /(?<![.\w])(?:exec|eval|compile)\s*\(|\beval\s+[\w$"'(]|new\s+Function\b|vm\.run\w*|runInThisContext|instance_eval|os\.system|os\.popen|subprocess\.\w+\([^)]*(?:shell\s*=\s*True|["'](?:ba)?sh["'])|execSync|\bsystem\s*\(|IO\.popen|\bqx\b|[(,]\s*eval\s*[),]/;
const execInPowerShell = /invoke-expression|\biex\b/i;

/** What code given inline to an interpreter does with what it fetches or decodes, if it runs it. */
export function inlineCodeRisk(code: string): 'fetch' | 'decode' | null {
  const flat = code.replace(/\s+/g, ' ');
  if (!execInCode.test(flat) && !execInPowerShell.test(flat)) return null;
  if (fetchInCode.test(flat)) return 'fetch';
  if (decodeInCode.test(flat)) return 'decode';
  return null;
}

/** Registries and code hosts a package manager installs from by default or by name. */
const knownSources =
  /^(?:registry\.npmjs\.org|registry\.yarnpkg\.com|npm\.pkg\.github\.com|pypi\.org|files\.pythonhosted\.org|pypi\.python\.org|github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|rubygems\.org|crates\.io|proxy\.golang\.org)$/i;
const installers = /^(?:pip[\d.]*|pipx|uv|uvx|npm|npx|pnpm|pnpx|yarn|bun|bunx|gem|cargo)$/;

/**
 * A package manager that installs or runs a package from an address of the script's choosing (a tarball
 * or repository URL, another index or registry): its install scripts run with the user's rights. The
 * host, or null when it installs from the usual places.
 */
export function installsFrom(simple: Simple): string | null {
  const name = simple.name ?? '';
  const values = simple.args.map((a) => a.value);
  const viaPython = interpreters.test(name) && values[0] === '-m' && /^pip/.test(values[1] ?? '');
  if (!installers.test(name) && !viaPython) return null;
  for (const value of values) {
    const url =
      /^(?:--(?:index-url|extra-index-url|find-links|registry|from|source|git)=)?(?:git\+)?(https?:\/\/|git:\/\/|ssh:\/\/)([^/\s:@]+@)?([^/\s:]+)/i.exec(
        value,
      );
    if (url && !knownSources.test(url[3]!)) return url[3]!.toLowerCase();
  }
  return null;
}
