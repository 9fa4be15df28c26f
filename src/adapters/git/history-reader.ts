import type { ScanFile } from '../../domain/kernel/findings.ts';
import { git } from './git-process.ts';
import { isBinary, listTree, readBlobs } from './tree-reader.ts';

/** A blob of a commit's history that is in none of the commits already served, and not in its own tree. */
export type HistoryFile = ScanFile & Readonly<{ commit: string; filePath: string }>;

export type NewHistory = Readonly<{
  /**
   * Each as a ScanFile whose path is `<path>@<commit>` (the commit that brought that content in), and each
   * commit's message as `commit-message@<commit>`: messages reach clients too.
   */
  files: readonly HistoryFile[];
  /** Distinct blobs found, before the bounds. */
  blobs: number;
  /** Commits in the range (each message is read). */
  commits: number;
  /** Blobs and messages left unread: over `maxBlobs`, or past `maxTotalBytes` of content. */
  unread: number;
}>;

/** The pseudo-path under which a commit's message is scanned. */
export const commitMessagePath = 'commit-message';

/** Content read from history at most, whatever the blob count: bounds the memory one run takes. */
export const historyMaxTotalBytes = 256 * 1024 * 1024;

/** The commits of `candidates` present in `repo` (a served commit purged meanwhile cannot be excluded). */
async function presentCommits(repo: string, candidates: readonly string[]): Promise<string[]> {
  if (candidates.length === 0) return [];
  const out = await git(['-C', repo, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: `${candidates.join('\n')}\n`,
  });
  return out
    .toString('latin1')
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([, type]) => type === 'commit')
    .map(([sha]) => sha!);
}

/**
 * What approving `sha` would newly expose as history (decision 334): every blob that a commit reachable
 * from `sha` but from none of `served` brought in (added or changed, merges compared with each parent),
 * less the blobs of `sha`'s own tree, which the tree scan reads. Each is attributed to the oldest such
 * commit. At most `maxBlobs` are read (newest first); binary and oversized blobs are listed, not read.
 */
export async function readNewHistory(
  repo: string,
  sha: string,
  served: readonly string[],
  limits: Readonly<{ maxBlobs: number; maxFileBytes: number; timeoutMs: number }>,
): Promise<NewHistory> {
  const exclude = (await presentCommits(repo, served)).filter((commit) => commit !== sha);
  const range = `${sha}\n${exclude.map((commit) => `^${commit}`).join('\n')}\n`;
  const options = { input: range, timeoutMs: limits.timeoutMs, maxOutputBytes: 256 * 1024 * 1024 };
  const log = await git(
    ['-C', repo, 'log', '--stdin', '-m', '--raw', '-z', '--no-abbrev', '--no-renames', '--format=%x01%H'],
    options,
  );
  const origin = new Map<string, { commit: string; path: string }>();
  let commit = '';
  // -z: "\x01<sha>\0" per commit (once per parent with -m), then "\n" and ":<modes> <oids> <status>\0<path>\0" records.
  const fields = log.toString('utf8').split('\0');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!.replace(/^\n+/, '');
    if (field.startsWith('\x01')) {
      commit = field.slice(1);
      continue;
    }
    if (!field.startsWith(':')) continue;
    const [, newMode, , newOid, status] = field.slice(1).split(' ');
    const path = fields[++i] ?? '';
    if (!status || status.startsWith('D') || newMode === '160000' || !newOid) continue;
    // Listed newest first: the last commit seen for a blob is the oldest that brought it in.
    origin.set(newOid, { commit, path });
  }
  const own = new Set((await listTree(repo, sha)).map((entry) => entry.oid));
  const fresh = [...origin].filter(([oid]) => !own.has(oid));
  const messages = await commitMessages(repo, options, limits.maxFileBytes);
  const kept = fresh.slice(0, Math.max(0, limits.maxBlobs - messages.length));
  const files = [...messages, ...(await historyFiles(repo, kept, limits.maxFileBytes))];
  return {
    files,
    blobs: fresh.length,
    commits: messages.length,
    unread: messages.length + fresh.length - files.length,
  };
}

/** The message of every commit in the range (a credential pasted into a message reaches clients as well). */
async function commitMessages(
  repo: string,
  options: Parameters<typeof git>[1],
  maxFileBytes: number,
): Promise<HistoryFile[]> {
  const out = await git(['-C', repo, 'log', '--stdin', '-z', '--format=%H%n%B'], options);
  return out
    .toString('utf8')
    .split('\0')
    .filter((record) => record.length > 41)
    .map((record) => {
      const commit = record.slice(0, 40);
      const text = record.slice(41);
      const size = Buffer.byteLength(text);
      const path = `${commitMessagePath}@${commit}`;
      const oversized = size > maxFileBytes;
      return {
        path,
        filePath: commitMessagePath,
        commit,
        size,
        text: oversized ? null : text,
        binary: false,
        oversized,
      };
    });
}

/** Reads the blobs as the connectors see files: text unless binary or over `maxFileBytes`. */
async function historyFiles(
  repo: string,
  blobs: ReadonlyArray<[string, { commit: string; path: string }]>,
  maxFileBytes: number,
): Promise<HistoryFile[]> {
  if (blobs.length === 0) return [];
  const sizes = new Map<string, number>();
  const out = await git(['-C', repo, 'cat-file', '--batch-check=%(objectname) %(objectsize)'], {
    input: `${blobs.map(([oid]) => oid).join('\n')}\n`,
  });
  for (const line of out.toString('latin1').split('\n')) {
    const [oid, size] = line.split(' ');
    if (oid && size && /^\d+$/.test(size)) sizes.set(oid, Number(size));
  }
  // Newest first, until the content budget is spent: what is left is unread (and reported as such).
  let budget = historyMaxTotalBytes;
  const within = blobs.filter(([oid]) => {
    const size = sizes.get(oid) ?? 0;
    if (size > maxFileBytes) return true; // listed, never read
    budget -= size;
    return budget >= 0;
  });
  const contents = await readBlobs(
    repo,
    within.map(([oid]) => oid).filter((oid) => (sizes.get(oid) ?? Infinity) <= maxFileBytes),
  );
  return within.map(([oid, { commit, path }]) => {
    const size = sizes.get(oid) ?? 0;
    const content = contents.get(oid);
    const base = { path: `${path}@${commit}`, filePath: path, commit, size };
    if (size > maxFileBytes || !content) return { ...base, text: null, binary: false, oversized: size > maxFileBytes };
    const binary = isBinary(content);
    return { ...base, text: binary ? null : content.toString('utf8'), binary, oversized: false };
  });
}
