import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { git, GitError, gitText, spawnGit } from './git-process.ts';

export type ReceiveLimits = Readonly<{
  /** Kill receive-pack after this long. */
  timeoutMs: number;
  /** The request body (after inflation): the command list and the pack. */
  maxBodyBytes: number;
  /** The command list at the head of the body. */
  maxCommandBytes: number;
}>;

export const defaultReceiveLimits: ReceiveLimits = {
  timeoutMs: 300_000,
  maxBodyBytes: 1024 * 1024 * 1024,
  maxCommandBytes: 1024 * 1024,
};

export class ReceiveLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReceiveLimitError';
  }
}

/**
 * How receive-pack runs on a quarantine repository: only refs/heads/main is visible or writable (the
 * quarantine also holds the gateway's pins, external sources and composites), deletions are refused,
 * non-fast-forward updates too under append-only, pushed objects are checked, and no hook, auto-gc
 * or server-info update runs.
 */
const receiveConfig = (policy: PushPolicy, limits: ReceiveLimits): string[] => [
  '-c',
  'receive.hideRefs=refs/',
  '-c',
  'receive.hideRefs=!refs/heads/main',
  '-c',
  'receive.denyDeletes=true',
  '-c',
  `receive.denyNonFastForwards=${policy === 'append-only' ? 'true' : 'false'}`,
  '-c',
  'receive.fsckObjects=true',
  '-c',
  'receive.shallowUpdate=false',
  '-c',
  'receive.advertisePushOptions=false',
  '-c',
  'receive.autogc=false',
  '-c',
  'receive.updateServerInfo=false',
  '-c',
  `receive.maxInputSize=${limits.maxBodyBytes}`,
  '-c',
  'core.hooksPath=/dev/null',
];

/** The ref advertisement of `git receive-pack --advertise-refs` (without the smart-HTTP service preamble). */
export function advertiseReceivePack(
  repo: string,
  policy: PushPolicy,
  limits: ReceiveLimits = defaultReceiveLimits,
): Promise<Buffer> {
  return git([...receiveConfig(policy, limits), 'receive-pack', '--stateless-rpc', '--advertise-refs', repo], {
    timeoutMs: 30_000,
    maxOutputBytes: 1024 * 1024,
  });
}

export type ReceiveRun = Readonly<{ output: Buffer; exitCode: number | null; stderr: string }>;

/**
 * Runs `git receive-pack --stateless-rpc` with `head` (the bytes already read) and then the rest of
 * the body on its standard input, counting the body against the limit. Its output (the report, and
 * side-band messages) is collected, not streamed: the gateway answers after it has recorded the push.
 */
export async function runReceivePack(
  repo: string,
  policy: PushPolicy,
  head: Buffer,
  rest: AsyncIterator<Buffer>,
  limits: ReceiveLimits = defaultReceiveLimits,
): Promise<ReceiveRun> {
  const child = spawnGit([...receiveConfig(policy, limits), 'receive-pack', '--stateless-rpc', repo]);
  const output: Buffer[] = [];
  let outputBytes = 0;
  let stderr = '';
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, limits.timeoutMs);
  child.stdout?.on('data', (chunk: Buffer) => {
    outputBytes += chunk.length;
    if (outputBytes > 16 * 1024 * 1024) {
      child.kill('SIGKILL');
      return;
    }
    output.push(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 16_384) stderr += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  let inputOpen = true;
  child.stdin?.on('error', () => {
    inputOpen = false;
  });
  const write = async (chunk: Buffer) => {
    if (!inputOpen || !child.stdin || child.stdin.destroyed) return;
    if (!child.stdin.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          child.stdin?.off('drain', done);
          child.stdin?.off('close', done);
          resolve();
        };
        child.stdin?.on('drain', done);
        child.stdin?.on('close', done);
      });
    }
  };
  try {
    let size = head.length;
    await write(head);
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      size += next.value.length;
      if (size > limits.maxBodyBytes)
        throw new ReceiveLimitError(`the push is larger than ${limits.maxBodyBytes} bytes`);
      await write(next.value);
    }
    child.stdin?.end();
  } catch (error) {
    child.kill('SIGKILL');
    await closed.catch(() => null);
    clearTimeout(timer);
    throw error;
  }
  const exitCode = await closed.finally(() => clearTimeout(timer));
  if (timedOut) throw new GitError(`git receive-pack timed out after ${limits.timeoutMs} ms`, exitCode, stderr, true);
  return { output: Buffer.concat(output), exitCode, stderr };
}

/** Whether `ancestor` is reachable from `descendant` (a fast-forward from one to the other). */
export async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await git(['-C', repo, 'merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1) return false;
    throw error;
  }
}

/** The commit a ref points at, or null when it does not exist. */
export async function refTip(repo: string, ref: string): Promise<string | null> {
  const sha = await gitText(['-C', repo, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => '');
  return sha === '' ? null : sha;
}

/** Pins a pushed commit in quarantine (`refs/quarantine/<sha>`), as ingestion pins what it fetches. */
export async function pinPushed(repo: string, sha: string): Promise<boolean> {
  if ((await refTip(repo, `refs/quarantine/${sha}`)) !== null) return false;
  await git(['-C', repo, 'update-ref', `refs/quarantine/${sha}`, sha]);
  return true;
}

export async function unpin(repo: string, sha: string): Promise<void> {
  await git(['-C', repo, 'update-ref', '-d', `refs/quarantine/${sha}`, sha]);
}

/**
 * Puts `ref` back where it was before a push that could not be recorded, only if it still holds what
 * the push left there (compare and swap: a later push is never undone).
 */
export async function restoreRef(repo: string, ref: string, previous: string | null, pushed: string): Promise<void> {
  if (previous === null) await git(['-C', repo, 'update-ref', '-d', ref, pushed]);
  else await git(['-C', repo, 'update-ref', ref, previous, pushed]);
}
