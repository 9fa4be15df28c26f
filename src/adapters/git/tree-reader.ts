import type { ScanFile, ScanInput } from '../../domain/kernel/findings.ts';
import { git, gitStreamed } from './git-process.ts';

export type TreeEntry = Readonly<{
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  size: number | null;
}>;

/** Every entry of a commit's tree, recursively (`git ls-tree -r -t -l -z`): blobs, trees and submodules. */
export async function listTree(
  repo: string,
  sha: string,
  options: Readonly<{ trees?: boolean }> = {},
): Promise<TreeEntry[]> {
  const output = await git(['-C', repo, 'ls-tree', '-r', ...(options.trees ? ['-t'] : []), '-l', '-z', sha], {
    maxOutputBytes: 512 * 1024 * 1024,
  });
  const entries: TreeEntry[] = [];
  for (const record of output.toString('utf8').split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).split(/\s+/);
    if (!mode || !type || !oid) continue;
    entries.push({
      path: record.slice(tab + 1),
      mode,
      type: type as TreeEntry['type'],
      oid,
      size: size === '-' || size === undefined ? null : Number(size),
    });
  }
  return entries;
}

/** Reads many blobs with one `git cat-file --batch`; returns oid → content. */
export async function readBlobs(repo: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  await streamBlobs(repo, oids, (oid, content) => blobs.set(oid, content));
  return blobs;
}

/**
 * Reads the output of `git cat-file --batch` chunk by chunk, however it is cut, giving each blob to
 * `onBlob` when its last byte has come. Gives the function to hand each chunk to.
 */
export function catFileParser(onBlob: (oid: string, content: Buffer) => void): (chunk: Buffer) => void {
  // What cat-file writes: "<oid> blob <size>\n<content>\n" per object, "<oid> missing\n" for an absent one.
  let header = Buffer.alloc(0); // an incomplete header line carried over to the next chunk
  let body: { oid: string; size: number; parts: Buffer[]; have: number } | null = null;
  return (chunk: Buffer) => {
    const data = header.length > 0 ? Buffer.concat([header, chunk]) : chunk;
    header = Buffer.alloc(0);
    let offset = 0;
    while (offset < data.length) {
      if (body === null) {
        const newline = data.indexOf(0x0a, offset);
        if (newline < 0) {
          header = Buffer.from(data.subarray(offset));
          return;
        }
        const [oid, type, size] = data.subarray(offset, newline).toString('latin1').split(' ');
        offset = newline + 1;
        if (type !== 'missing') body = { oid: oid!, size: Number(size), parts: [], have: 0 };
        continue;
      }
      const wanted = body.size + 1 - body.have; // the content, then a newline
      const part = data.subarray(offset, offset + wanted);
      body.parts.push(part);
      body.have += part.length;
      offset += part.length;
      if (body.have < body.size + 1) return;
      const whole = body.parts.length === 1 ? body.parts[0]! : Buffer.concat(body.parts);
      onBlob(body.oid, whole.subarray(0, body.size));
      body = null;
    }
  };
}

/**
 * Reads many blobs with one `git cat-file --batch`, giving each to `onBlob` as soon as it has arrived
 * (each oid once; a missing one is left out), so that a large tree is never gathered in one buffer.
 */
export async function streamBlobs(
  repo: string,
  oids: readonly string[],
  onBlob: (oid: string, content: Buffer) => void,
): Promise<void> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return;
  const take = catFileParser(onBlob);
  await gitStreamed(
    ['-C', repo, 'cat-file', '--batch'],
    { input: `${unique.join('\n')}\n`, maxOutputBytes: 2 * 1024 * 1024 * 1024, timeoutMs: 600_000 },
    take,
  );
}

/** Binary as git decides it: a NUL byte in the first 8000 bytes. */
export const isBinary = (content: Buffer): boolean => content.subarray(0, 8000).includes(0);

/** Blobs between two progress reports. */
const progressEvery = 500;

type Read = Readonly<{ text: string | null; binary: boolean }>;

/**
 * The blobs of `oids` as text (null when binary), each decoded as it arrives from one `git cat-file
 * --batch` (the event loop runs between the chunks git writes), `onRead` told the blobs read so far.
 */
async function readTexts(
  repo: string,
  oids: readonly string[],
  onRead: ((read: number) => void) | undefined,
): Promise<Map<string, Read>> {
  const texts = new Map<string, Read>();
  await streamBlobs(repo, oids, (oid, content) => {
    const binary = isBinary(content);
    texts.set(oid, { text: binary ? null : content.toString('utf8'), binary });
    if (texts.size % progressEvery === 0) onRead?.(texts.size);
  });
  onRead?.(oids.length); // the same content at several paths is read once for all of them
  return texts;
}

/**
 * The pinned tree of a snapshot as the vetting connectors see it: every file with its text, except
 * binary files and files over `maxFileBytes` (those are listed, not read), and whether git records it as
 * executable. Symlinks are listed with
 * their target as text; submodules are skipped. `onProgress` is told the files read (the listed-only
 * ones count as read) of all files, after the listing and after each batch of blobs.
 */
export async function readScanInput(
  repo: string,
  sha: string,
  settings: Omit<ScanInput, 'files' | 'byPath'>,
  onProgress?: (read: number, total: number) => void,
): Promise<ScanInput> {
  const entries = (await listTree(repo, sha)).filter((entry) => entry.type === 'blob');
  const wanted = entries.filter((entry) => (entry.size ?? 0) <= settings.maxFileBytes).map((entry) => entry.oid);
  const listedOnly = entries.length - wanted.length;
  onProgress?.(listedOnly, entries.length);
  const texts = await readTexts(repo, wanted, onProgress && ((read) => onProgress(listedOnly + read, entries.length)));
  const files: ScanFile[] = entries.map((entry) => {
    const size = entry.size ?? 0;
    const read = texts.get(entry.oid);
    const executable = entry.mode === '100755';
    if (size > settings.maxFileBytes || !read)
      return { path: entry.path, size, text: null, binary: false, oversized: size > settings.maxFileBytes, executable };
    return { path: entry.path, size, text: read.text, binary: read.binary, oversized: false, executable };
  });
  return { ...settings, files, byPath: new Map(files.map((file) => [file.path, file])) };
}

/** git's empty tree: the base of a diff when nothing is served. */
export const emptyTree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export type ChangedPath = Readonly<{ path: string; type: 'added' | 'modified' | 'removed' }>;

/** Paths that differ between two commits (or the empty tree), in git's path order, renames not paired. */
export async function changedPaths(repo: string, base: string | null, sha: string): Promise<ChangedPath[]> {
  const output = await git(
    ['-C', repo, 'diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', base ?? emptyTree, sha],
    { maxOutputBytes: 256 * 1024 * 1024 },
  );
  const fields = output.toString('utf8').split('\0');
  const changes: ChangedPath[] = [];
  // Records are ":<modes> <oids> <status>\0<path>\0".
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i]!.trim().split(' ').at(-1)?.[0];
    const path = fields[i + 1]!;
    if (!status || !path) continue;
    changes.push({ path, type: status === 'A' ? 'added' : status === 'D' ? 'removed' : 'modified' });
  }
  return changes;
}

export type PathDiff = Readonly<{ path: string; binary: boolean; truncated: boolean; diff: string }>;

/**
 * Unified diffs of the given paths between two commits, each cut at `maxBytes` (the cut is marked
 * `truncated`). One `git diff` per hundred paths; the paths are passed literally, never as patterns.
 */
export async function unifiedDiffs(
  repo: string,
  base: string | null,
  sha: string,
  paths: readonly string[],
  maxBytes: number,
): Promise<Map<string, PathDiff>> {
  const diffs = new Map<string, PathDiff>();
  if (paths.length === 0) return diffs;
  // Batches keep the command line short (git diff takes paths as arguments only).
  for (let start = 0; start < paths.length; start += 100) {
    const batch = paths.slice(start, start + 100);
    const output = await git(
      [
        '-C',
        repo,
        '-c',
        'core.quotePath=false',
        '--literal-pathspecs',
        'diff',
        '--no-color',
        '--no-ext-diff',
        '--no-renames',
        '--full-index',
        base ?? emptyTree,
        sha,
        '--',
        ...batch,
      ],
      { maxOutputBytes: 512 * 1024 * 1024, timeoutMs: 120_000 },
    );
    // Chunks come in git's path order (byte order) for the same paths; pair them by position.
    const chunks = output
      .toString('utf8')
      .split(/^(?=diff --git )/m)
      .filter((chunk) => chunk.startsWith('diff --git '));
    const ordered = [...batch].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const [index, chunk] of chunks.entries()) {
      const path = ordered[index];
      if (path === undefined) break;
      const binary = /^Binary files .* differ$/m.test(chunk);
      const bytes = Buffer.byteLength(chunk);
      const text =
        bytes > maxBytes
          ? Buffer.from(chunk)
              .subarray(0, maxBytes)
              .toString('utf8')
              .replace(/\uFFFD$/, '')
          : chunk;
      diffs.set(path, { path, binary, truncated: bytes > maxBytes, diff: text });
    }
  }
  return diffs;
}
