import { Type } from 'typebox';
import { snapshotCapabilities } from '../../../application/snapshots/capabilities.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { Capability } from './capabilities.schema.ts';
import { tags } from './snapshots.shared.ts';

const Capabilities = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  plugins: Type.Array(Type.Object({ name: Type.String(), capabilities: Type.Array(Capability) })),
});

export function snapshotCapabilitiesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/capabilities',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Capabilities, ...problemResponses(404, 409) },
        summary:
          'Capability inventory: what each plugin can do once installed (hosts it contacts, environment ' +
          'variables and credentials it reads, programs it runs, files it writes outside the project, MCP servers)',
        description:
          'Read from every script a plugin ships (shell parsed, each fact at its line), the command lines of its ' +
          'hooks and its MCP server declarations. One entry per (kind, value), with every place that shows it and ' +
          'the hook events shown to run it, directly or through wrappers (empty: no hook is shown to). Works on ' +
          "held snapshots. The shell's own variables, builtins and plain file utilities are not listed.",
      },
    },
    async (request) => snapshotCapabilities(deps, request.params.id),
  );
}
