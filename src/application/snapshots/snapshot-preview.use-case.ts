// What a preview of a snapshot reads from its quarantine repository: its files, one file's text, its tree,
// its diff against what the marketplace serves, and its licenses. The snapshot is addressed (and the
// caller's standing checked) first; these read git, within the preview limits.
import { changedPaths, isBinary, listTree, readBlobs, unifiedDiffs } from '../../adapters/git/tree-reader.ts';
import { licenseReport, prepareSpdxReferences } from '../../adapters/vetting/license.connector.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { snapshotTree } from '../policy/evaluation.ts';
import type { AddressedSnapshot } from './addressed-snapshot.ts';

// Preview limits (docs/marketplaces.md): "file listing capped at 2000 entries; file text cut at 128 KiB with truncated
// true and the full size still reported, binary blobs return metadata with no text; diff entry list
// capped at 500 and each unified diff at 128 KiB. Paths are matched against tree entries only."
export const previewLimits = {
  files: 2000,
  fileBytes: 128 * 1024,
  diffEntries: 500,
  diffBytes: 128 * 1024,
  treeEntries: 10_000,
} as const;

/** The snapshot's files (blobs), with their sizes, up to the listing limit. */
export async function snapshotFiles({ snapshot, repo }: AddressedSnapshot) {
  const blobs = (await listTree(repo, snapshot.sha)).filter((e) => e.type === 'blob');
  return {
    snapshotId: snapshot.id,
    sha: snapshot.sha,
    truncated: blobs.length > previewLimits.files,
    entries: blobs.slice(0, previewLimits.files).map((e) => ({ path: e.path, size: e.size ?? 0 })),
  };
}

/** One file of the snapshot: its text up to the limit, or only its size when it is binary (404 when none). */
export async function snapshotFile({ snapshot, repo }: AddressedSnapshot, path: string) {
  const entry = (await listTree(repo, snapshot.sha)).find((e) => e.type === 'blob' && e.path === path);
  if (!entry) throw reject('not-found', `no file '${path}' in the tree of snapshot ${snapshot.id}`);
  const content = (await readBlobs(repo, [entry.oid])).get(entry.oid) ?? Buffer.alloc(0);
  const binary = isBinary(content);
  const truncated = !binary && content.length > previewLimits.fileBytes;
  // A cut may split a UTF-8 sequence: drop the replacement character it would decode to.
  const text = () =>
    content
      .subarray(0, previewLimits.fileBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
  return {
    snapshotId: snapshot.id,
    path: entry.path,
    size: content.length,
    binary,
    truncated,
    ...(binary ? {} : { text: text() }),
  };
}

/** The snapshot's tree, directories included, up to the tree limit. */
export async function snapshotTreeEntries({ snapshot, repo }: AddressedSnapshot) {
  const entries = await listTree(repo, snapshot.sha, { trees: true });
  const truncated = entries.length > previewLimits.treeEntries;
  const shown = entries.slice(0, previewLimits.treeEntries);
  return { snapshotId: snapshot.id, sha: snapshot.sha, truncated, entries: shown };
}

/** What the snapshot changes against the commit its marketplace serves now (every file when none is served). */
export async function snapshotDiff(deps: Pick<Ports, 'gitStore'>, { snapshot, marketplace, repo }: AddressedSnapshot) {
  const baselineSha = await deps.gitStore.servedSha(marketplace.id);
  const changes = await changedPaths(repo, baselineSha, snapshot.sha);
  const shown = changes.slice(0, previewLimits.diffEntries);
  const paths = shown.map((c) => c.path);
  const diffs = await unifiedDiffs(repo, baselineSha, snapshot.sha, paths, previewLimits.diffBytes);
  return {
    snapshotId: snapshot.id,
    sha: snapshot.sha,
    baselineSha,
    truncated: changes.length > shown.length,
    entries: shown.map((c) => {
      const d = diffs.get(c.path);
      return {
        path: c.path,
        type: c.type,
        binary: d?.binary ?? false,
        truncated: d?.truncated ?? false,
        diff: d?.diff ?? '',
      };
    }),
  };
}

/** The licenses the snapshot's plugins declare and find, as the license connector reports them. */
export async function snapshotLicenses(deps: Pick<Ports, 'gitStore' | 'vetting'>, { snapshot }: AddressedSnapshot) {
  await prepareSpdxReferences();
  return { snapshotId: snapshot.id, sha: snapshot.sha, ...licenseReport(await snapshotTree(deps, snapshot)) };
}
