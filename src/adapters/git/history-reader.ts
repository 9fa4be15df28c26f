import type { ScanFile } from '../../domain/vetting/findings.ts';
import { git } from './git-process.ts';
import { isBinary, listTree, readBlobs } from './tree-reader.ts';

/** A blob of a commit's history that is in none of the commits already served, and not in its own tree. */
export type HistoryFile = ScanFile & Readonly<{ commit: string; filePath: string }>;

export type NewHistory = Readonly<{
  /** Each as a ScanFile whose path is `<path>@<commit>`: the commit that brought that content in. */
  files: readonly HistoryFile[];
  /** Distinct blobs found, before the bound. */
  blobs: number;
  commits: number;
  /** More blobs than `maxBlobs`: only the newest `maxBlobs` were read. */
  truncated: boolean;
}>;

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
  const log = await git(
    ['-C', repo, 'log', '--stdin', '-m', '--raw', '-z', '--no-abbrev', '--no-renames', '--format=%x01%H'],
    {
      input: `${sha}\n${exclude.map((commit) => `^${commit}`).join('\n')}\n`,
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: 1024 * 1024 * 1024,
    },
  );
  const origin = new Map<string, { commit: string; path: string }>();
  const commits = new Set<string>();
  let commit = '';
  // -z: "\x01<sha>\0" per commit (once per parent with -m), then "\n" and ":<modes> <oids> <status>\0<path>\0" records.
  const fields = log.toString('utf8').split('\0');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!.replace(/^\n+/, '');
    if (field.startsWith('\x01')) {
      commit = field.slice(1);
      commits.add(commit);
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
  const kept = fresh.slice(0, limits.maxBlobs);
  const files = await historyFiles(repo, kept, limits.maxFileBytes);
  return { files, blobs: fresh.length, commits: commits.size, truncated: fresh.length > kept.length };
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
  const contents = await readBlobs(
    repo,
    blobs.map(([oid]) => oid).filter((oid) => (sizes.get(oid) ?? Infinity) <= maxFileBytes),
  );
  return blobs.map(([oid, { commit, path }]) => {
    const size = sizes.get(oid) ?? 0;
    const content = contents.get(oid);
    const base = { path: `${path}@${commit}`, filePath: path, commit, size };
    if (size > maxFileBytes || !content) return { ...base, text: null, binary: false, oversized: size > maxFileBytes };
    const binary = isBinary(content);
    return { ...base, text: binary ? null : content.toString('utf8'), binary, oversized: false };
  });
}
