import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { initBare, initServed, pruneUnreachable } from '../git/bare-repo.ts';
import { git, gitText } from '../git/git-process.ts';
import { isAncestor } from '../git/receive-pack.ts';
import { readRefs, restamp } from '../git/served-view.ts';

/**
 * What the bucket says one repository holds: its refs, the packs that together hold every object those
 * refs reach, and a generation raised by every change. A manifest is written only after every pack it
 * names, so a reader holding it can always fetch what it needs.
 */
export type Manifest = Readonly<{
  version: 1;
  generation: number;
  refs: Readonly<Record<string, string>>;
  packs: readonly string[];
}>;

/** What a local repository last agreed with the bucket on (the manifest it was brought to or wrote). */
type SyncState = Omit<Manifest, 'version'>;

/** A repository of the local cache: where it is, and whether the facade serves it (its stamp then changes with its refs). */
export type LocalRepo = Readonly<{ path: string; served: boolean; quarantine: boolean }>;

const stateFile = 'gateway-object-store.json';
const incoming = 'gateway-incoming';
// Refs that live only while one ingest runs on one replica (git-store.ts fetchStaged): never shared.
const localOnly = (ref: string) => ref.startsWith('refs/staging/');
const emptyState: SyncState = { generation: 0, refs: {}, packs: [] };

export function readState(repo: string): SyncState {
  try {
    const parsed = JSON.parse(readFileSync(join(repo, stateFile), 'utf8')) as SyncState;
    return { generation: parsed.generation, refs: parsed.refs, packs: parsed.packs };
  } catch {
    return emptyState;
  }
}

function writeState(repo: string, state: SyncState): void {
  const temporary = join(repo, `${stateFile}.${process.pid}.tmp`);
  writeFileSync(temporary, JSON.stringify(state));
  renameSync(temporary, join(repo, stateFile));
}

export async function ensureRepo(local: LocalRepo): Promise<string> {
  return local.served ? initServed(local.path) : initBare(local.path);
}

async function sharedRefs(repo: string): Promise<Map<string, string>> {
  return new Map([...(await readRefs(repo))].filter(([ref]) => !localOnly(ref)));
}

/**
 * The refs `remote` gives once this replica's own changes since `state` (refs set or deleted locally and
 * not yet in the bucket) are laid over it: a three-way merge, ref by ref.
 */
function merged(remote: Manifest, state: SyncState, local: ReadonlyMap<string, string>): Map<string, string> {
  const refs = new Map(Object.entries(remote.refs));
  for (const [ref, sha] of local) if (state.refs[ref] !== sha) refs.set(ref, sha);
  for (const ref of Object.keys(state.refs)) if (!local.has(ref)) refs.delete(ref);
  return refs;
}

/** Object count of a pack file (its header), without reading the rest. */
function packObjects(file: string): number {
  const header = Buffer.alloc(12);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 12, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(8);
}

/** Where the packs of a repository are kept in the bucket, and its manifest. */
export const packKey = (key: string, pack: string) => `packs/${key}/${pack}.pack`;
export const manifestKey = (key: string) => `manifests/${key}.json`;

export type PackStore = Readonly<{
  download(key: string, file: string): Promise<void>;
  put(key: string, body: Buffer): Promise<void>;
}>;

/**
 * Downloads each pack of `manifest` the repository does not have yet, verifies it (`git index-pack`
 * checks every object's id and the pack's checksum, and must find the very pack the manifest names) and
 * only then installs it. A pack that cannot be fetched or verified throws before any ref moved.
 */
async function fetchPacks(repo: string, key: string, manifest: Manifest, have: readonly string[], bucket: PackStore) {
  const missing = manifest.packs.filter((pack) => !have.includes(pack));
  if (missing.length === 0) return;
  const dir = join(repo, incoming, randomUUID());
  mkdirSync(dir, { recursive: true });
  try {
    for (const pack of missing) {
      const file = join(dir, `${pack}.pack`);
      await bucket.download(packKey(key, pack), file);
      const indexed = await gitText(['-C', repo, 'index-pack', file], { timeoutMs: 600_000 });
      if (`pack-${indexed.replace(/^pack\t/, '')}` !== pack)
        throw new Error(`${pack} of ${key} is not the pack it claims to be`);
      // The index last: git sees a pack only once its index is in place.
      renameSync(file, join(repo, 'objects', 'pack', `${pack}.pack`));
      renameSync(join(dir, `${pack}.idx`), join(repo, 'objects', 'pack', `${pack}.idx`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Throws unless every tip is an object of the repository (nothing is served that is not all there). */
async function checkPresent(repo: string, shas: Iterable<string>): Promise<void> {
  const wanted = [...new Set(shas)];
  if (wanted.length === 0) return;
  const answer = await gitText(['-C', repo, 'cat-file', '--batch-check'], { input: `${wanted.join('\n')}\n` });
  const missing = answer.split('\n').filter((line) => line.endsWith(' missing'));
  if (missing.length > 0) throw new Error(`objects missing after download: ${missing.join(', ')}`);
}

/** Moves the repository's shared refs to `target` in one transaction, restamped on both sides when served. */
async function moveRefs(local: LocalRepo, target: ReadonlyMap<string, string>): Promise<{ removed: number }> {
  const current = await sharedRefs(local.path);
  const commands: string[] = [];
  for (const [ref, sha] of target) if (current.get(ref) !== sha) commands.push(`update ${ref} ${sha}`);
  const removed = [...current.keys()].filter((ref) => !target.has(ref));
  for (const ref of removed) commands.push(`delete ${ref}`);
  if (commands.length === 0) return { removed: 0 };
  if (local.served) restamp(local.path);
  try {
    await git(['-C', local.path, 'update-ref', '--stdin'], { input: `${commands.join('\n')}\n` });
  } finally {
    if (local.served) restamp(local.path);
  }
  return { removed: removed.length };
}

/**
 * Brings the local repository to `manifest` (this replica's own unshared changes kept on top): packs
 * first, verified, then the refs. A served repository whose refs were withdrawn, or whose packs were
 * rewritten by the writer, is pruned, so withdrawn content cannot be fetched from this replica either; a
 * quarantine in that case answers `unpruned`, for its caller to prune under the repository's lock.
 */
export async function applyManifest(
  local: LocalRepo,
  key: string,
  manifest: Manifest,
  bucket: PackStore,
): Promise<Readonly<{ unpruned: boolean }>> {
  const repo = await ensureRepo(local);
  const state = readState(repo);
  await fetchPacks(repo, key, manifest, state.packs, bucket);
  const target = merged(manifest, state, await sharedRefs(repo));
  await checkPresent(repo, target.values());
  const { removed } = await moveRefs(local, target);
  writeState(repo, { generation: manifest.generation, refs: manifest.refs, packs: manifest.packs });
  const repacked = state.packs.some((pack) => !manifest.packs.includes(pack));
  if (!(removed > 0 || repacked)) return { unpruned: false };
  // A quarantine is pruned only under its exclusive lock (an ingest may be writing objects no ref reaches yet).
  if (local.quarantine) return { unpruned: true };
  await pruneUnreachable(repo);
  return { unpruned: false };
}

/** Whether the bucket's packs must be rewritten whole: a ref withdrawn or moved off its history. */
async function rewritten(repo: string, before: Manifest, after: ReadonlyMap<string, string>): Promise<boolean> {
  for (const [ref, sha] of Object.entries(before.refs)) {
    const now = after.get(ref);
    if (now === undefined) return true;
    if (now !== sha && !(await isAncestor(repo, sha, now).catch(() => false))) return true;
  }
  return false;
}

/**
 * Writes the local repository's changes to the bucket: the objects its refs reach that the bucket's
 * packs do not hold (`git pack-objects --revs`, the previous tips excluded) as one new pack, uploaded
 * FIRST, then the manifest naming it. When a ref was withdrawn or rewound everything is packed anew and
 * the old packs are returned to be deleted once the new manifest is written. Null when nothing changed.
 */
export async function writeChanges(
  local: LocalRepo,
  key: string,
  remote: Manifest,
  bucket: PackStore,
): Promise<{ manifest: Manifest; obsolete: string[] } | null> {
  const repo = local.path;
  const refs = await sharedRefs(repo);
  const same = refs.size === Object.keys(remote.refs).length && [...refs].every(([r, s]) => remote.refs[r] === s);
  if (same) return null;
  const whole = await rewritten(repo, remote, refs);
  const dir = join(repo, incoming, randomUUID());
  mkdirSync(dir, { recursive: true });
  try {
    const exclude = whole ? [] : [...new Set(Object.values(remote.refs))].map((sha) => `^${sha}`);
    const input = `${[...new Set(refs.values()), ...exclude].join('\n')}\n`;
    const hash = await gitText(['-C', repo, 'pack-objects', '--revs', '--quiet', join(dir, 'pack')], {
      input,
      timeoutMs: 600_000,
    });
    const file = join(dir, `pack-${hash}.pack`);
    const fresh = packObjects(file) > 0 ? [`pack-${hash}`] : [];
    for (const pack of fresh) await bucket.put(packKey(key, pack), readFileSync(file));
    const packs = whole ? fresh : [...remote.packs, ...fresh.filter((pack) => !remote.packs.includes(pack))];
    const manifest: Manifest = { version: 1, generation: remote.generation + 1, refs: Object.fromEntries(refs), packs };
    return { manifest, obsolete: whole ? remote.packs.filter((pack) => !packs.includes(pack)) : [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Records that the local repository now agrees with `manifest` (which it wrote). */
export function agreed(repo: string, manifest: Manifest): void {
  if (existsSync(join(repo, 'HEAD'))) writeState(repo, manifest);
}
