import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { externalRoot } from '../../domain/plugin/manifest-policy.ts';
import { pruneUnreachable } from './bare-repo.ts';
import { externalPin } from './external-copy.ts';
import { git, gitText } from './git-process.ts';

/** A ref and the commit it names. */
export type RefTip = Readonly<{ ref: string; sha: string }>;

/** The marketplace ids that have a quarantine repository under `<root>/quarantine` (removed ones too). */
export function quarantineIds(root: string): number[] {
  const dir = join(root, 'quarantine');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^(\d+)\.git$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Every ref under `prefix` (e.g. `refs/staging/`) of a repository, with its commit. */
export async function refsUnder(repo: string, prefix: string): Promise<RefTip[]> {
  if (!existsSync(join(repo, 'HEAD'))) return [];
  const text = await gitText(['-C', repo, 'for-each-ref', '--format=%(refname) %(objectname)', prefix]);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [ref, sha] = line.split(' ');
      return { ref: ref!, sha: sha! };
    });
}

/**
 * When a staging ref was made, from its name: ingestion names them `refs/staging/<ms since epoch, base 36>-<pid>`
 * (git-store.ts fetchStaged). The name is the ref's own timestamp, so it survives restarts and ref packing.
 * Null for a name in no such form (never the gateway's: it is left alone).
 */
export function stagingRefCreatedAt(ref: string): Date | null {
  const stamp = /^refs\/staging\/([0-9a-z]+)-\d+$/.exec(ref)?.[1];
  if (stamp === undefined) return null;
  const ms = parseInt(stamp, 36);
  return Number.isSafeInteger(ms) && ms > 0 ? new Date(ms) : null;
}

/** Deletes refs in one transaction; a ref already gone is no error (a pass retried after a crash). */
export async function deleteRefs(repo: string, refs: readonly string[]): Promise<void> {
  if (refs.length === 0 || !existsSync(join(repo, 'HEAD'))) return;
  await git(['-C', repo, 'update-ref', '--stdin'], { input: refs.map((ref) => `delete ${ref}\n`).join('') });
}

/**
 * Drops from the repository every object no ref reaches any more (`git gc --prune=now`, reflogs expired
 * first): what other refs (live snapshots, staging refs, external pins, a hosted marketplace's main) reach stays.
 * It also drops objects an ingest wrote and has not pinned yet: callers hold the repository's exclusive
 * lock (QuarantineLocks, adapters/postgres/quarantine-locks.ts), which every ingest holds shared.
 */
export async function pruneQuarantine(repo: string): Promise<void> {
  if (existsSync(join(repo, 'HEAD'))) await pruneUnreachable(repo);
}

/**
 * The external plugin pins (`refs/quarantine/external/<tree>`) of a repository that none of `commits`
 * uses: a composite holds each external plugin's tree under `.gateway-external/<name>` (git-store.ts),
 * so the trees a commit uses are read from the commit itself (one `cat-file` for all the commits, one
 * `ls-tree` per distinct external directory). Commits absent from the repository use nothing.
 */
export async function unusedExternalPins(repo: string, commits: Iterable<string>): Promise<string[]> {
  const pins = await refsUnder(repo, 'refs/quarantine/external/');
  if (pins.length === 0) return [];
  const wanted = [...new Set(commits)];
  const listing =
    wanted.length === 0
      ? ''
      : await gitText(['-C', repo, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], {
          input: wanted.map((commit) => `${commit}:${externalRoot}\n`).join(''),
        });
  const directories = new Set(
    listing
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, type]) => type === 'tree')
      .map(([oid]) => oid!),
  );
  const used = new Set<string>();
  for (const directory of directories)
    for (const line of (await gitText(['-C', repo, 'ls-tree', directory])).split('\n')) {
      const tree = /^040000 tree ([0-9a-f]+)\t/.exec(line)?.[1];
      if (tree !== undefined) used.add(tree);
    }
  return pins.filter(({ ref, sha }) => ref === externalPin(sha) && !used.has(sha)).map(({ ref }) => ref);
}
