import { Type } from 'typebox';
import { pluginSelectionOf, setPluginSelection } from '../../../application/marketplaces/plugin-selection.use-case.ts';
import { selectionLimits } from '../../../domain/snapshot/selection.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin } from '../../auth/acting.ts';
import { problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { SelectionView, selectionView } from '../../schemas/marketplace.schema.ts';

const tags = ['marketplaces'];
const SelectionAnswer = Type.Object({ marketplace: Type.String(), selection: SelectionView });

const patternRules =
  `A pattern is a plugin-name glob matched against the whole name, case-sensitively: \`*\` matches any run of characters, ` +
  `\`?\` exactly one, every other character itself; \`[ ] { } \\\` and a leading \`!\` are refused. Each list holds at most ` +
  `${selectionLimits.maxPatterns} patterns of 1 to ${selectionLimits.maxPatternLength} characters (400 \`invalid-selection\` ` +
  `naming every offending pattern; nothing is recorded).`;

// Bounds are the domain's (400 with a readable detail), not the schema's (422), so no maxItems/maxLength here;
// the body limit (gateway.server.body-limit-bytes) caps what is read at all.
const SelectionBody = Type.Object(
  {
    include: Type.Optional(
      Type.Array(Type.String(), { description: 'plugins to serve; empty or absent: every plugin' }),
    ),
    exclude: Type.Optional(Type.Array(Type.String(), { description: 'plugins left out after include' })),
  },
  { additionalProperties: false },
);

export function selectionRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/marketplaces/:name/selection',
    {
      schema: {
        tags,
        summary: 'Which plugins of the marketplace are served (null: every plugin)',
        description: 'The selection the next ingest applies; the same value is the marketplace listing’s `selection`.',
        params: NameParams,
        response: { 200: SelectionAnswer, ...problemResponses(404) },
      },
    },
    async (request) => {
      callerOf(request);
      const { marketplace, selection } = await pluginSelectionOf(deps, request.params.name);
      return { marketplace, selection: selectionView(selection) };
    },
  );
  app.put(
    '/api/v1/marketplaces/:name/selection',
    {
      schema: {
        tags,
        summary: 'Choose which plugins of the marketplace are served: include/exclude name patterns (admin)',
        description:
          'Only selected plugins are resolved, vetted, composed and served; each snapshot says which were left out and why. ' +
          'An empty or absent `include` selects every plugin, and `exclude` then leaves out what it matches. ' +
          `${patternRules} Both lists empty (or \`{}\`) clears the selection: every plugin is served again. ` +
          'The change is recorded on the ledger (`marketplace-selection-set`) and takes effect at the next ingest; it does ' +
          'not start one (POST /api/v1/marketplaces/{name}/ingest does). Sending the selection already set records nothing.',
        params: NameParams,
        body: SelectionBody,
        response: { 200: SelectionAnswer, ...problemResponses(400, 403, 404, 422) },
      },
    },
    async (request) => {
      const { marketplace, selection } = await actAsAdmin(deps, request, (_admin, meta) =>
        setPluginSelection(deps, request.params.name, request.body, meta),
      );
      return { marketplace, selection: selectionView(selection) };
    },
  );
}
