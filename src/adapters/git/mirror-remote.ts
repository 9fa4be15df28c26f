import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitText } from './git-process.ts';
import { remoteText, type RemoteGit } from './remote-git.ts';

/**
 * The forge mirror's side of git (docs/mirror.md): reading what the gateway serves, asking the mirror what it
 * holds, pushing explicit refspecs. The credentials travel as an `Authorization: Basic` header set through
 * git's environment configuration (GIT_CONFIG_COUNT/KEY/VALUE), so they are never in a URL, in git's
 * argument list (which every process listing shows), or in anything git prints.
 */

/** The mirror's push credentials as read from their reference: `user:password`, or null (none configured). */
export type MirrorAuth = Readonly<{ header: string; secrets: readonly string[] }> | null;

export class MirrorCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MirrorCredentialsError';
  }
}

/** `user:password` (a forge token as the password) as an HTTP Basic header; the value is never in a message. */
export function mirrorAuth(credentials: string | null): MirrorAuth {
  if (credentials === null) return null;
  const colon = credentials.indexOf(':');
  if (colon <= 0 || colon === credentials.length - 1)
    throw new MirrorCredentialsError('gateway.mirror.credentials must hold user:password (a token as the password)');
  const encoded = Buffer.from(credentials, 'utf8').toString('base64');
  return {
    header: `Authorization: Basic ${encoded}`,
    secrets: [credentials, credentials.slice(colon + 1), encoded],
  };
}

const authEnv = (auth: MirrorAuth): Record<string, string> =>
  auth === null ? {} : { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: auth.header };

/** A message safe to report: git never prints the header, and whatever it printed is scrubbed anyway. */
export function scrubbed(auth: MirrorAuth, error: unknown): string {
  let text = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  for (const secret of auth?.secrets ?? []) if (secret.length > 0) text = text.split(secret).join('[redacted]');
  return text;
}

const parseRefs = (text: string): Map<string, string> => {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [sha, name] = line.split(/\s+/);
    if (sha && name && /^[0-9a-f]{40}$/.test(sha)) refs.set(name, sha);
  }
  return refs;
};

/**
 * Every ref the mirror repository at `url` advertises (HEAD aside); throws when it cannot be read. `remote`
 * runs git through the outbound boundary (decision 341), as does the push.
 */
export async function mirrorRefs(
  remote: RemoteGit,
  url: string,
  auth: MirrorAuth,
  timeoutMs = 30_000,
): Promise<Map<string, string>> {
  const options = { env: authEnv(auth), timeoutMs, maxOutputBytes: 64 << 20 };
  const text = await remoteText(remote, ['ls-remote', '--', url], options);
  const refs = parseRefs(text);
  refs.delete('HEAD');
  return refs;
}

/** Pushes explicit refspecs (`+sha:ref`, `:ref`) from the repository at `gitDir`; nothing else moves. */
export async function pushToMirror(
  remote: RemoteGit,
  gitDir: string,
  url: string,
  auth: MirrorAuth,
  refspecs: readonly string[],
  timeoutMs = 600_000,
): Promise<void> {
  if (refspecs.length === 0) return;
  await remote(['--git-dir', gitDir, 'push', '--quiet', '--no-verify', '--', url, ...refspecs], {
    env: authEnv(auth),
    timeoutMs,
  });
}

/** The gateway's own served repository answered incompletely: the mirror declines to act on it. */
export class ServedStorageError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = 'ServedStorageError';
  }
}

/**
 * The refs of a served repository, read without git's repository discovery (a damaged directory must not be
 * mistaken for an enclosing repository), each checked to resolve to a commit present in it. `null` when
 * the repository does not exist at all; a ServedStorageError when it exists and cannot be read whole.
 */
export async function servedRefs(gitDir: string, label: string): Promise<Map<string, string> | null> {
  if (!existsSync(gitDir)) return null;
  if (!existsSync(join(gitDir, 'HEAD')) || !existsSync(join(gitDir, 'objects')))
    throw new ServedStorageError(`the published repository of ${label} is incomplete (no HEAD or objects)`);
  let refs: Map<string, string>;
  try {
    refs = parseRefs(await gitText(['--git-dir', gitDir, 'for-each-ref', '--format=%(objectname) %(refname)']));
  } catch (error) {
    throw new ServedStorageError(`the published repository of ${label} cannot be read (${firstLine(error)})`);
  }
  const shas = [...new Set(refs.values())];
  if (shas.length === 0) return refs;
  let answers: string[];
  try {
    const input = shas.map((sha) => `${sha}\n`).join('');
    answers = (await gitText(['--git-dir', gitDir, 'cat-file', '--batch-check'], { input })).split('\n');
  } catch (error) {
    throw new ServedStorageError(`the published repository of ${label} cannot be read (${firstLine(error)})`);
  }
  shas.forEach((sha, i) => {
    const [oid, type] = (answers[i] ?? '').split(' ');
    if (oid !== sha || type !== 'commit')
      throw new ServedStorageError(`the published repository of ${label} lacks commit ${sha}`);
  });
  return refs;
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
