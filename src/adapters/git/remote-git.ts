import type { OutboundBoundary } from '../outbound/outbound-boundary.ts';
import type { GateNote } from '../outbound/git-socks-gate.ts';
import { git, GitError, type GitOptions } from './git-process.ts';

/** Runs a git command that talks to a remote (ls-remote, fetch, push). */
export type RemoteGit = (args: readonly string[], options?: GitOptions) => Promise<Buffer>;

/** A git command whose connection the outbound boundary refused; `detail` names the address and the network. */
export class OutboundRefused extends GitError {
  readonly detail: string;
  constructor(detail: string, cause: GitError) {
    super(`refused at the outbound boundary: ${detail}`, cause.exitCode, `fatal: ${detail}\n`, false);
    this.detail = detail;
    this.name = 'OutboundRefused';
  }
}

/**
 * What every remote git command is given under the boundary (decision 341): the gate as its proxy for
 * http and https, every other transport refused (git:// and the rest would not go through the gate), and
 * no proxy exclusion from the environment (git's environment is built from nothing; this says it again).
 */
const gateSettings = (proxyUrl: string): ReadonlyArray<readonly [string, string]> => [
  ['http.proxy', proxyUrl],
  ['protocol.allow', 'never'],
  ['protocol.http.allow', 'always'],
  ['protocol.https.allow', 'always'],
];

/**
 * The settings as GIT_CONFIG_COUNT/KEY/VALUE entries after those already in `env` (the mirror's
 * credentials travel the same way): never in git's argument list, which every process listing shows.
 */
function withGate(env: Readonly<Record<string, string>>, proxyUrl: string): Record<string, string> {
  const merged: Record<string, string> = { ...env, NO_PROXY: '', no_proxy: '' };
  let count = Number(env.GIT_CONFIG_COUNT ?? 0);
  for (const [key, value] of gateSettings(proxyUrl)) {
    merged[`GIT_CONFIG_KEY_${count}`] = key;
    merged[`GIT_CONFIG_VALUE_${count}`] = value;
    count += 1;
  }
  merged.GIT_CONFIG_COUNT = String(count);
  return merged;
}

/** A failed command explained by what the gate saw: a refusal always, a failed connection when curl blamed the proxy. */
function explained(error: unknown, notes: readonly GateNote[]): unknown {
  if (!(error instanceof GitError)) return error;
  const denied = notes.find((note) => note.kind === 'denied');
  if (denied) return new OutboundRefused(denied.detail, error);
  const failed = notes.find((note) => note.kind === 'failed');
  if (failed && /SOCKS/i.test(error.stderr))
    return new GitError(
      `${error.message.split(': ')[0]}: ${failed.detail}`,
      error.exitCode,
      `fatal: ${failed.detail}\n`,
      error.timedOut,
    );
  return error;
}

/** git for remote commands: through the boundary's gate, or plain git when the boundary denies nothing. */
export function remoteGit(boundary: OutboundBoundary): RemoteGit {
  if (boundary.networks.length === 0) return git;
  return async (args, options = {}) => {
    const session = (await boundary.gitGate()).session();
    try {
      return await git(args, { ...options, env: withGate(options.env ?? {}, session.proxyUrl) });
    } catch (error) {
      throw explained(error, session.notes());
    } finally {
      session.end();
    }
  };
}

/** `remote` for commands whose output is text (gitText's trim). */
export const remoteText = async (remote: RemoteGit, args: readonly string[], options: GitOptions = {}) =>
  (await remote(args, options)).toString('utf8').trim();
