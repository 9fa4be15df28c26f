// What a Python or JavaScript script does with its values, judged the same way for both languages: data
// sent off the machine (whose data, to which host, with which API), code run (fetched or decoded), files
// read and written, environment variables read. Each judgement records the risk a reviewer must see
// (hooks-shell.ts's rules) and the facts of the capability inventory, at the line of the call.
import type { Severity } from '../../kernel/findings.ts';
import type { CapabilityKind } from './hooks-analysis-types.ts';
import { isCredentialPath } from './hooks-commands.ts';
import { outsideProject } from './hooks-facts.ts';
import { computed } from './hooks-facts-hosts.ts';
import { ignoredVariable } from './hooks-facts-ignored.ts';
import {
  labelDetail,
  labelKind,
  labelsOf,
  lineOf,
  tainted,
  text,
  textOf,
  type Flow,
  type Label,
  type Value,
} from './hooks-flow.ts';
import { excerpt } from './hooks-lines.ts';
import { carried, hostOf, queryKey, type Part } from './hooks-sensitive.ts';

export { authKey, hostOf, type Part } from './hooks-sensitive.ts';
import type { ShellNode } from './hooks-syntax.ts';

const order = [
  'hooks-remote-code-execution',
  'hooks-credential-access',
  'hooks-data-exfiltration',
  'hooks-remote-fetch',
];
const rank: Readonly<Record<Severity, number>> = { INFO: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

/** How much a message says: a named host over a computed one, then more of it. */
const specific = (what: string): number => (what.includes('a computed host') ? 0 : 100_000) + what.length;

/** One risk per rule and line: the loudest, and of equally loud ones the one that says most. */
export function risk(flow: Flow, id: string, severity: Severity, what: string, node: ShellNode): void {
  const line = lineOf(flow, node);
  const key = `${id}:${line}`;
  const old = flow.report.risks.get(key);
  if (
    old !== undefined &&
    (rank[old.severity] > rank[severity] || (old.severity === severity && specific(old.what) >= specific(what)))
  )
    return;
  const fragment = excerpt(flow.source.slice(node.start, Math.min(node.end, node.start + 400)));
  flow.report.risks.set(key, { id, severity, what, fragment, line });
}

export const ruleOrder = (id: string): number => order.indexOf(id);

export function fact(flow: Flow, kind: CapabilityKind, value: string, node: ShellNode): void {
  if (value === '') return;
  const line = lineOf(flow, node);
  const key = `${kind}\u0000${value}\u0000${line}`;
  if (!flow.report.facts.has(key)) flow.report.facts.set(key, { kind, value, line });
}

// --- where data comes from -----------------------------------------------------------------------

/** What an environment variable stands for: the plugin's directories and the home directory are paths. */
const placeholders: Readonly<Record<string, string>> = {
  HOME: '~',
  USERPROFILE: '~',
  CLAUDE_PLUGIN_ROOT: '${CLAUDE_PLUGIN_ROOT}',
  CLAUDE_PROJECT_DIR: '${CLAUDE_PROJECT_DIR}',
  CLAUDE_PLUGIN_DATA: '${CLAUDE_PLUGIN_DATA}',
  TMPDIR: '/tmp',
  TEMP: '/tmp',
  TMP: '/tmp',
};

/** One variable read from the environment (`os.environ['X']`, `process.env.X`); null: a name computed at run time. */
export function readEnv(flow: Flow, node: ShellNode, name: string | null): Value {
  if (name === null) {
    fact(flow, 'reads-env', '*', node);
    return tainted('env:?');
  }
  if (!ignoredVariable(name)) fact(flow, 'reads-env', name, node);
  const placeholder = placeholders[name];
  return placeholder === undefined ? tainted(`env:${name}`) : text(placeholder, [`env:${name}`]);
}

/** The whole environment used as data (serialised, listed, sent): a fact, once the script does so. */
export function usesEnvironment(flow: Flow, node: ShellNode, value: Value): void {
  if (labelsOf(value).includes('env:*')) fact(flow, 'reads-env', '*', node);
}

/** `~` however a script spells the home directory. */
export const homeFirst = (path: string): string => path.replace(/^(?:\$\{HOME\}|\$HOME(?!\w))(?=\/|$)/, '~');

/** A credential store a path names, whole or by the directory it starts with (`~/.ssh/` + a computed name). */
export function credentialPath(path: Value): string | null {
  const known = path.str;
  if (known !== undefined) {
    const p = homeFirst(known);
    return isCredentialPath(p) ? p : null;
  }
  const start = textOf(path);
  if (start === undefined) return null;
  const dir = homeFirst(start.slice(0, start.indexOf('\u0001') === -1 ? undefined : start.indexOf('\u0001')));
  if (!dir.endsWith('/')) return null;
  return isCredentialPath(`${dir}x`) ? dir.replace(/\/+$/, '') : null;
}

const transcripts = /^~\/\.claude\/(?:projects|history\.jsonl|todos|transcripts|shell-snapshots)(?:\/|$)/;

const stdinPath = (path: Value): boolean =>
  path.num === 0 || path.str === '/dev/stdin' || path.str === '/proc/self/fd/0' || path.str === '/dev/fd/0';

/** What reading a file gives: the hook's input, a credential, what the script wrote there, the path's own labels. */
export function readFile(flow: Flow, node: ShellNode, path: Value, how: string): Value {
  const labels: Label[] = [...(path.taint ?? [])];
  if (stdinPath(path)) labels.push(`input:${how}`);
  // Claude Code's transcripts and prompt history hold what the user wrote and what tools returned.
  const start = textOf(path);
  if (start !== undefined && transcripts.test(homeFirst(start)))
    labels.push(`input:${homeFirst(start).split('\u0001')[0]}`);
  const credential = credentialPath(path);
  if (credential !== null) {
    labels.push(`cred:${credential}`);
    fact(flow, 'reads-credentials', credential, node);
    // The project's `.env` holds what the project is given to use; a store in the home directory is the user's.
    const project = /(?:^|\/)\.env(?:\.[\w-]+)?$/.test(credential) && !credential.startsWith('~/');
    risk(flow, 'hooks-credential-access', project ? 'MEDIUM' : 'HIGH', `reads the credential file ${credential}`, node);
  }
  const known = path.str === undefined ? undefined : flow.files.get(homeFirst(path.str));
  if (known) labels.push(...known);
  return labels.length > 0 ? { taint: [...new Set(labels)] } : {};
}

/** A keychain or secret store read through an API (`keyring.get_password`). */
export function readKeychain(flow: Flow, node: ShellNode, how: string): Value {
  fact(flow, 'reads-credentials', how, node);
  risk(flow, 'hooks-credential-access', 'HIGH', `reads a keychain secret (${how})`, node);
  return tainted('cred:keychain');
}

/** Credential stores in the home directory: writing there plants a key or a token (`~/.ssh/authorized_keys`). */
const homeStore =
  /^~\/\.(?:ssh|aws|gnupg|kube|docker|azure|netrc|npmrc|pypirc|git-credentials|config\/(?:gh|gcloud|hub))(?:\/|$)/;

/** Shell startup files: what is written there runs in every new shell. */
export const startupFile =
  /^~\/(?:\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc)|\.config\/fish\/config\.fish)$/;

/** Data written to a file: outside the project it is a fact; fetched code in a startup file runs later. */
export function writeData(flow: Flow, node: ShellNode, path: Value, data: Value): void {
  const start = textOf(path);
  const p = start === undefined ? undefined : homeFirst(start.split('\u0001')[0]!);
  if (p !== undefined && outsideProject(p) && !p.startsWith('/tmp')) fact(flow, 'writes-outside-project', p, node);
  const labels = labelsOf(data);
  if (p !== undefined && path.str !== undefined && labels.length > 0) {
    const old = flow.files.get(p) ?? [];
    const next = [...new Set([...old, ...labels])];
    if (next.length !== old.length) {
      flow.files.set(p, next);
      flow.changed = true;
    }
  }
  if (p !== undefined && path.str !== undefined && homeStore.test(p))
    risk(flow, 'hooks-credential-access', 'HIGH', `writes to the credential store ${p}`, node);
  const code = labels.filter((l) => labelKind(l) === 'fetched' || labelKind(l) === 'decoded');
  if (p !== undefined && startupFile.test(p) && code.length > 0)
    risk(
      flow,
      'hooks-remote-code-execution',
      'CRITICAL',
      `writes ${origin(code)} into ${p}, run by every new shell`,
      node,
    );
}

// --- data leaving the machine ------------------------------------------------------------------------

/** The data a label stands for, in a message. */
export function describe(flow: Flow, labels: readonly Label[]): string {
  const phrases = [
    ...new Set(
      labels.map((label) => {
        const detail = labelDetail(label);
        switch (labelKind(label)) {
          case 'env':
            if (detail === '*') return `the environment (${flow.names.env})`;
            return detail === '?' ? 'an environment variable named at run time' : `$${detail} from the environment`;
          case 'cred':
            return detail === 'keychain'
              ? 'a keychain secret'
              : /^(?:~|\/)/.test(detail)
                ? `the credential file ${detail}`
                : `a credential (${detail})`;
          default:
            return detail.startsWith('~')
              ? `Claude Code's transcripts (${detail}: the user's prompts and tool output)`
              : `the hook's input (${detail}: the user's prompts and tool output)`;
        }
      }),
    ),
  ];
  if (phrases.length === 1) return phrases[0]!;
  return `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)!}`;
}

/** Where code comes from, in a message. */
function origin(labels: readonly Label[]): string {
  const fetched = labels.filter((l) => labelKind(l) === 'fetched').map(labelDetail);
  if (fetched.length > 0) {
    const host = fetched.find((h) => h !== computed);
    return host ? `code fetched from ${host}` : 'fetched code';
  }
  return `code decoded with ${labels.map(labelDetail)[0] ?? 'a decoder'}`;
}

export type Send = Readonly<{
  via: string;
  /** The URL (or host) it goes to; null when the API does not say. */
  target: Value | null;
  /** What it carries: the data, the headers, the fields. */
  parts: readonly Part[];
  /** It changes something on the server (POST, PUT, a socket write) rather than only asks. */
  posts: boolean;
}>;

/** A request off the machine: exfiltration when it carries the user's data, else a fetch or post to name. */
export function send(flow: Flow, node: ShellNode, request: Send): Value {
  const host = hostOf(request.target);
  if (host === null) return {};
  fact(flow, 'contacts-host', host, node);
  const target = request.target;
  // Labels of a URL's computed base (configured by the user) are where it goes, not what it carries.
  const configured = target !== null && (target.lead ?? []).some((l) => labelKind(l) === 'env');
  const url: Part[] =
    target === null
      ? []
      : [
          {
            value: { taint: (target.taint ?? []).filter((l) => !(target.lead ?? []).includes(l)) },
            auth: queryKey.test(target.template ?? ''),
          },
        ];
  const leaving = carried([...url, ...request.parts], { host, configured, own: flow.own });
  const where = host === computed ? 'a computed host' : host;
  if (leaving.length > 0) {
    usesEnvironment(flow, node, { taint: leaving });
    const critical = leaving.some((l) => labelKind(l) !== 'input');
    risk(
      flow,
      'hooks-data-exfiltration',
      critical ? 'CRITICAL' : 'HIGH',
      `sends ${describe(flow, leaving)} to ${where} with ${request.via}`,
      node,
    );
  } else if (request.posts || request.parts.length > 0)
    risk(flow, 'hooks-remote-fetch', 'MEDIUM', `posts to ${where} with ${request.via}`, node);
  else risk(flow, 'hooks-remote-fetch', 'LOW', `fetches from ${where} with ${request.via}`, node);
  return tainted(`fetched:${host}`);
}

/** A DNS lookup: a name computed from the user's data carries it to whoever serves the zone. */
export function lookup(flow: Flow, node: ShellNode, name: Value, via: string): void {
  const host = hostOf(name);
  if (host === null) return;
  fact(flow, 'contacts-host', host, node);
  const leaving = carried([{ value: name }], { host, configured: false, own: flow.own });
  if (leaving.length > 0)
    risk(
      flow,
      'hooks-data-exfiltration',
      leaving.some((l) => labelKind(l) !== 'input') ? 'CRITICAL' : 'HIGH',
      `sends ${describe(flow, leaving)} in a DNS lookup with ${via}`,
      node,
    );
}

/** Code run by an interpreter of the script (`exec`, `eval`, `Function`): fetched or decoded code is remote code. */
export function execute(flow: Flow, node: ShellNode, code: Value, via: string): void {
  const labels = labelsOf(code).filter((l) => labelKind(l) === 'fetched' || labelKind(l) === 'decoded');
  if (labels.length === 0) return;
  const fetched = labels.some((l) => labelKind(l) === 'fetched');
  const what = fetched
    ? `runs ${origin(labels)} with ${via}`
    : `decodes and executes hidden code (${origin(labels)}, run with ${via})`;
  risk(flow, 'hooks-remote-code-execution', 'CRITICAL', what, node);
}

/** Is a value code from elsewhere (fetched or decoded)? */
export const isForeignCode = (value: Value): boolean =>
  labelsOf(value).some((l) => labelKind(l) === 'fetched' || labelKind(l) === 'decoded');
