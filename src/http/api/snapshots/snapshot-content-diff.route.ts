import { Type } from 'typebox';
import { snapshotContentDiff } from '../../../application/snapshots/content-diff.use-case.ts';
import { skillStatuses } from '../../../domain/plugin/content-diff.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import { Capability } from './capabilities.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const ContentDiff = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  state: Type.String(),
  baselineSnapshotId: Type.Union([Type.Integer(), Type.Null()]),
  baselineSha: NullableString,
  plugins: Type.Array(
    Type.Object({
      name: Type.String(),
      description: NullableString,
      source: Type.String(),
      status: literalUnion(['added', 'removed', 'changed', 'unchanged'] as const),
      skills: Type.Array(
        Type.Object({
          name: Type.String(),
          path: Type.String(),
          status: literalUnion(skillStatuses),
          movedFromPlugin: NullableString,
        }),
      ),
      capabilitiesAdded: Type.Array(Capability, {
        description:
          'What this plugin newly asks to do: capabilities the baseline lacks, or that now run on hook events ' +
          'they did not (listed with those new events only)',
      }),
      capabilitiesRemoved: Type.Array(Capability, { description: 'Capabilities the baseline had and this lacks' }),
    }),
  ),
  summary: Type.Object(
    Object.fromEntries(skillStatuses.map((s) => [s, Type.Integer()])) as Record<
      (typeof skillStatuses)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
});

export function snapshotContentDiffRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/content-diff',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: ContentDiff, ...problemResponses(404, 409) },
        summary: 'Plugins and skills against the live approved baseline: added, removed, changed, moved, unchanged',
        description:
          'The baseline is the newest live approved snapshot of the marketplace other than this one (null ' +
          'when there is none: everything is added). A skill is changed when anything under its directory differs ' +
          '(git tree comparison). A skill moved between plugins is reported once, on its new plugin, as moved ' +
          '(changed, with movedFromPlugin still set, if its content changed too). Each plugin also lists the ' +
          'capabilities it adds and drops against the baseline (GET .../capabilities; with no baseline everything ' +
          'is added), keyed by kind and value. No file text is returned.',
      },
    },
    async (request) => snapshotContentDiff(deps, request.params.id),
  );
}
