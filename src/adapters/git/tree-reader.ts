import type { ScanFile, ScanInput } from '../../domain/vetting/findings.ts';
import { git } from './git-process.ts';

export type TreeEntry = Readonly<{ path: string; mode: string; type: 'blob' | 'tree' | 'commit'; oid: string; size: number | null }>;

/** Every entry of a commit's tree, recursively (`git ls-tree -r -t -l -z`): blobs, trees and submodules. */
export async function listTree(repo: string, sha: string, options: Readonly<{ trees?: boolean }> = {}): Promise<TreeEntry[]> {
  const output = await git(['-C', repo, 'ls-tree', '-r', ...(options.trees ? ['-t'] : []), '-l', '-z', sha], { maxOutputBytes: 512 * 1024 * 1024 });
  const entries: TreeEntry[] = [];
  for (const record of output.toString('utf8').split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).split(/\s+/);
    if (!mode || !type || !oid) continue;
    entries.push({ path: record.slice(tab + 1), mode, type: type as TreeEntry['type'], oid, size: size === '-' || size === undefined ? null : Number(size) });
  }
  return entries;
}

/** Reads many blobs with one `git cat-file --batch`; returns oid → content. */
export async function readBlobs(repo: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const output = await git(['-C', repo, 'cat-file', '--batch'], { input: `${unique.join('\n')}\n`, maxOutputBytes: 2 * 1024 * 1024 * 1024, timeoutMs: 600_000 });
  let offset = 0;
  while (offset < output.length) {
    const newline = output.indexOf(0x0a, offset);
    if (newline < 0) break;
    const header = output.subarray(offset, newline).toString('latin1').split(' ');
    offset = newline + 1;
    if (header[1] === 'missing') continue;
    const size = Number(header[2]);
    blobs.set(header[0]!, output.subarray(offset, offset + size));
    offset += size + 1; // content, then a newline
  }
  return blobs;
}

/** Binary as git decides it: a NUL byte in the first 8000 bytes. */
export const isBinary = (content: Buffer): boolean => content.subarray(0, 8000).includes(0);

/**
 * The pinned tree of a snapshot as the vetting connectors see it: every file with its text, except
 * binary files and files over `maxFileBytes` (those are listed, not read). Symlinks are listed with
 * their target as text; submodules are skipped.
 */
export async function readScanInput(repo: string, sha: string, settings: Omit<ScanInput, 'files' | 'byPath'>): Promise<ScanInput> {
  const entries = (await listTree(repo, sha)).filter((entry) => entry.type === 'blob');
  const wanted = entries.filter((entry) => (entry.size ?? 0) <= settings.maxFileBytes).map((entry) => entry.oid);
  const blobs = await readBlobs(repo, wanted);
  const files: ScanFile[] = entries.map((entry) => {
    const size = entry.size ?? 0;
    const content = blobs.get(entry.oid);
    if (size > settings.maxFileBytes || !content) return { path: entry.path, size, text: null, binary: false, oversized: size > settings.maxFileBytes };
    const binary = isBinary(content);
    return { path: entry.path, size, text: binary ? null : content.toString('utf8'), binary, oversized: false };
  });
  return { ...settings, files, byPath: new Map(files.map((file) => [file.path, file])) };
}
