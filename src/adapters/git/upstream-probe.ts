import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git-process.ts';
import type { RemoteGit } from './remote-git.ts';
import { quietFetch, rootCauseOf, upstreamConfig, UpstreamError } from './upstream-access.ts';

export type UpstreamProbe = Readonly<{
  /** Where the throwaway repository is made (and removed again): the gateway's git root. */
  scratch: string;
  url: string;
  branch: string;
  path: string;
  /** The whole probe, fetch and read, ends by then. */
  timeoutMs: number;
  maxBytes: number;
}>;

/**
 * One file of an upstream's branch tip, read without touching any marketplace's repositories: a
 * depth-1 fetch of the branch into a throwaway bare repository, one `cat-file`, and the repository
 * removed whatever happens. Answers the file's bytes, or null when the tip has no such file (or it is
 * larger than `maxBytes`); a fetch that fails or outlasts the time throws an UpstreamError.
 */
export async function readUpstreamFile(remote: RemoteGit, probe: UpstreamProbe): Promise<Buffer | null> {
  mkdirSync(probe.scratch, { recursive: true });
  const repo = mkdtempSync(join(probe.scratch, 'probe-'));
  const deadline = Date.now() + probe.timeoutMs;
  try {
    await git(['init', '--bare', '--quiet', repo]);
    try {
      await remote(
        [...upstreamConfig, ...quietFetch(repo), '--depth=1', probe.url, `+refs/heads/${probe.branch}:refs/probe`],
        { timeoutMs: probe.timeoutMs },
      );
    } catch (error) {
      throw new UpstreamError(
        'upstream not checked',
        rootCauseOf(error),
        'ingest to read the upstream in full; if the ingest fails, check that the repository is reachable',
      );
    }
    try {
      return await git(['-C', repo, 'cat-file', 'blob', `refs/probe:${probe.path}`], {
        maxOutputBytes: probe.maxBytes,
        timeoutMs: Math.max(1000, deadline - Date.now()),
      });
    } catch {
      return null;
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
