import { Type } from 'typebox';
import { isBinary, listTree, readBlobs } from '../../../adapters/git/tree-reader.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject } from '../../../application/kernel/rejected.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { previewed, previewLimits, tags } from './snapshots.shared.ts';

const File = Type.Object({
  snapshotId: Type.Integer(),
  path: Type.String(),
  size: Type.Integer(),
  binary: Type.Boolean(),
  truncated: Type.Boolean(),
  text: Type.Optional(Type.String()),
});

export function snapshotFileRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/file',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096 }) }),
        summary: 'Preview: one file of the pinned tree as text (approver of the marketplace, or admin)',
        description:
          `Text is cut at ${previewLimits.fileBytes / 1024} KiB (\`truncated\` true, \`size\` still the full ` +
          'size); a binary file has no `text`. The path is matched against the entries of the tree only: anything else ' +
          'is 404.',
        response: { 200: File, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { snapshot, repo } = await previewed(deps, request, request.params.id);
      const entry = (await listTree(repo, snapshot.sha)).find(
        (e) => e.type === 'blob' && e.path === request.query.path,
      );
      if (!entry) throw reject('not-found', `no file '${request.query.path}' in the tree of snapshot ${snapshot.id}`);
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
    },
  );
}
