import { Type } from 'typebox';
import { changedPaths, isBinary, listTree, readBlobs, unifiedDiffs } from '../../../adapters/git/tree-reader.ts';
import { fetchersOf } from '../../../projections/vetting/vetting.queries.ts';
import { requireApproverOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject } from '../../problems.ts';
import { addressedSnapshot } from '../../../application/addressed-snapshot.ts';
import { IdParams, NullableTimestamp, problemResponses, Timestamp } from '../../schemas/common.schema.ts';
import { AffectedView } from '../../schemas/vetting.schema.ts';

// spec, Preview reads: "file listing capped at 2000 entries; file text cut at 128 KiB with truncated
// true and the full size still reported, binary blobs return metadata with no text; diff entry list
// capped at 500 and each unified diff at 128 KiB. Paths are matched against tree entries only."
export const previewLimits = { files: 2000, fileBytes: 128 * 1024, diffEntries: 500, diffBytes: 128 * 1024, treeEntries: 10_000 } as const;

const tags = ['snapshots'];
const NullableString = Type.Union([Type.String(), Type.Null()]);

export function snapshotReadRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get('/api/v1/snapshots/:id/files', {
    schema: {
      tags, summary: 'Preview: the files of the pinned tree with their sizes (approver of the marketplace, or admin)', params: IdParams,
      description: `At most ${previewLimits.files} entries, in path order; \`truncated\` is true when the listing was cut.`,
      response: {
        200: Type.Object({ snapshotId: Type.Integer(), sha: Type.String(), truncated: Type.Boolean(), entries: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer() })) }),
        ...problemResponses(403, 404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    await requireApproverOf(deps, request, marketplace);
    const blobs = (await listTree(repo, snapshot.sha)).filter((e) => e.type === 'blob');
    return {
      snapshotId: snapshot.id, sha: snapshot.sha, truncated: blobs.length > previewLimits.files,
      entries: blobs.slice(0, previewLimits.files).map((e) => ({ path: e.path, size: e.size ?? 0 })),
    };
  });

  app.get('/api/v1/snapshots/:id/file', {
    schema: {
      tags, summary: 'Preview: one file of the pinned tree as text (approver of the marketplace, or admin)', params: IdParams,
      querystring: Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096 }) }),
      description: `Text is cut at ${previewLimits.fileBytes / 1024} KiB (\`truncated\` true, \`size\` still the full size); a binary file has no \`text\`. `
        + 'The path is matched against the entries of the tree only: anything else is 404.',
      response: {
        200: Type.Object({ snapshotId: Type.Integer(), path: Type.String(), size: Type.Integer(), binary: Type.Boolean(), truncated: Type.Boolean(), text: Type.Optional(Type.String()) }),
        ...problemResponses(403, 404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    await requireApproverOf(deps, request, marketplace);
    const entry = (await listTree(repo, snapshot.sha)).find((e) => e.type === 'blob' && e.path === request.query.path);
    if (!entry) throw reject('not-found', `no file '${request.query.path}' in the tree of snapshot ${snapshot.id}`);
    const content = (await readBlobs(repo, [entry.oid])).get(entry.oid) ?? Buffer.alloc(0);
    const binary = isBinary(content);
    const truncated = !binary && content.length > previewLimits.fileBytes;
    return {
      snapshotId: snapshot.id, path: entry.path, size: content.length, binary, truncated,
      ...(binary ? {} : { text: content.subarray(0, previewLimits.fileBytes).toString('utf8').replace(/\uFFFD$/, '') }),
    };
  });

  app.get('/api/v1/snapshots/:id/diff', {
    schema: {
      tags, summary: 'Preview: what approving would change, against the commit served now (approver of the marketplace, or admin)', params: IdParams,
      description: `At most ${previewLimits.diffEntries} entries and ${previewLimits.diffBytes / 1024} KiB of unified diff each (\`truncated\`). `
        + 'With nothing served, `baselineSha` is null and every file is added.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), sha: Type.String(), baselineSha: NullableString, truncated: Type.Boolean(),
          entries: Type.Array(Type.Object({
            path: Type.String(), type: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('removed')]),
            binary: Type.Boolean(), truncated: Type.Boolean(), diff: Type.String(),
          })),
        }),
        ...problemResponses(403, 404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    await requireApproverOf(deps, request, marketplace);
    const baselineSha = await deps.gitStore.servedSha(marketplace.id);
    const changes = await changedPaths(repo, baselineSha, snapshot.sha);
    const shown = changes.slice(0, previewLimits.diffEntries);
    const diffs = await unifiedDiffs(repo, baselineSha, snapshot.sha, shown.map((c) => c.path), previewLimits.diffBytes);
    return {
      snapshotId: snapshot.id, sha: snapshot.sha, baselineSha, truncated: changes.length > shown.length,
      entries: shown.map((c) => {
        const d = diffs.get(c.path);
        return { path: c.path, type: c.type, binary: d?.binary ?? false, truncated: d?.truncated ?? false, diff: d?.diff ?? '' };
      }),
    };
  });

  app.get('/api/v1/snapshots/:id/fetchers', {
    schema: {
      tags, summary: 'Who received this snapshot through the facade, with fetch count and last fetch (approver of the marketplace, or admin)', params: IdParams,
      response: { 200: Type.Object({ snapshotId: Type.Integer(), sha: Type.String(), fetchers: Type.Array(AffectedView) }), ...problemResponses(403, 404) },
    },
  }, async (request) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    await requireApproverOf(deps, request, marketplace);
    return { snapshotId: snapshot.id, sha: snapshot.sha, fetchers: await fetchersOf(deps.pool, marketplace.id, snapshot.sha) };
  });

  app.get('/api/v1/snapshots/:id/provenance', {
    schema: {
      tags, summary: 'Where the snapshot came from: origin, upstream, the commit captured and the commit served, who ingested it', params: IdParams,
      description: '`composite` is true when external plugin sources were resolved into a commit of the gateway whose parent is `upstreamSha`.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), marketplace: Type.String(), origin: Type.String(), url: NullableString, sha: Type.String(), upstreamSha: Type.String(),
          composite: Type.Boolean(), capturedAt: Timestamp, ingestedBy: NullableString, committedAt: NullableTimestamp, state: Type.String(),
          decidedBy: NullableString, decidedAt: NullableTimestamp,
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    return {
      snapshotId: snapshot.id, marketplace: marketplace.name, origin: marketplace.origin, url: marketplace.url, sha: snapshot.sha,
      upstreamSha: snapshot.upstreamSha, composite: snapshot.sha !== snapshot.upstreamSha, capturedAt: snapshot.createdAt,
      ingestedBy: snapshot.ingestedBy, committedAt: await deps.gitStore.commitTime(repo, snapshot.upstreamSha), state: snapshot.state,
      decidedBy: snapshot.decidedBy, decidedAt: snapshot.decidedAt,
    };
  });

  app.get('/api/v1/snapshots/:id/release-age', {
    schema: {
      tags, summary: 'How long since the commit was captured, against gateway.vetting.minimum-release-age', params: IdParams,
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), sha: Type.String(), capturedAt: Timestamp, ageMs: Type.Integer(), minimumReleaseAgeMs: Type.Integer(),
          approvableAt: Timestamp, elapsed: Type.Boolean(),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot } = await addressedSnapshot(deps, request.params.id);
    const now = deps.clock.now().getTime();
    const captured = Date.parse(snapshot.createdAt);
    const minimum = deps.marketplaces.minimumReleaseAgeMs;
    return {
      snapshotId: snapshot.id, sha: snapshot.sha, capturedAt: snapshot.createdAt, ageMs: Math.max(0, now - captured), minimumReleaseAgeMs: minimum,
      approvableAt: new Date(captured + minimum).toISOString(), elapsed: now - captured >= minimum,
    };
  });

  app.get('/api/v1/snapshots/:id/four-eyes', {
    schema: {
      tags, summary: 'Whether the person who approved is not the one who brought the commit in', params: IdParams,
      description: '`satisfied` is null while the snapshot is undecided, true when it was approved by someone other than the ingesting principal.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), state: Type.String(), ingestedBy: NullableString, approvedBy: NullableString, satisfied: Type.Union([Type.Boolean(), Type.Null()]),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot } = await addressedSnapshot(deps, request.params.id);
    const approvedBy = snapshot.approvedAt !== null ? snapshot.decidedBy : null;
    return {
      snapshotId: snapshot.id, state: snapshot.state, ingestedBy: snapshot.ingestedBy, approvedBy,
      satisfied: approvedBy === null ? null : approvedBy !== snapshot.ingestedBy,
    };
  });

  app.get('/api/v1/snapshots/:id/tree', {
    schema: {
      tags, summary: 'The pinned git tree: every directory and file with mode, object id and size', params: IdParams,
      description: `At most ${previewLimits.treeEntries} entries in path order (\`truncated\`).`,
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), sha: Type.String(), truncated: Type.Boolean(),
          entries: Type.Array(Type.Object({ path: Type.String(), type: Type.String(), mode: Type.String(), oid: Type.String(), size: Type.Union([Type.Integer(), Type.Null()]) })),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot, repo } = await addressedSnapshot(deps, request.params.id);
    const entries = await listTree(repo, snapshot.sha, { trees: true });
    return { snapshotId: snapshot.id, sha: snapshot.sha, truncated: entries.length > previewLimits.treeEntries, entries: entries.slice(0, previewLimits.treeEntries) };
  });
}
