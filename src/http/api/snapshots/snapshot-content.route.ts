import { Type } from 'typebox';
import { addressedSnapshot } from '../../../application/snapshots/addressed-snapshot.ts';
import { snapshotTree } from '../../../application/policy/evaluation.ts';
import { inventoryOf } from '../../../domain/plugin/inventory.ts';
import { layoutOf } from '../../../domain/plugin/layout.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { NullableString, tags } from './snapshots.shared.ts';

const Component = Type.Object({ name: Type.String(), path: Type.String() });
const PluginInventory = Type.Object({
  name: Type.String(),
  description: NullableString,
  source: Type.String(),
  skills: Type.Array(Component),
  commands: Type.Array(Component),
  agents: Type.Array(Component),
  hooks: Type.Array(
    Type.Object({
      event: Type.String(),
      matcher: NullableString,
      type: Type.String(),
      runs: Type.String(),
      location: Type.String(),
      declaredBy: Type.String({ description: '`plugin`, `skill <name>` or `agent <name>`' }),
    }),
  ),
  mcpServers: Type.Array(Component),
  lspServers: Type.Array(Component),
});
const Content = Type.Object({
  snapshotId: Type.Integer(),
  sha: Type.String(),
  state: Type.String(),
  plugins: Type.Array(PluginInventory),
});

export function snapshotContentRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/snapshots/:id/content',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: Content, ...problemResponses(404, 409) },
        summary: 'Content inventory: every plugin with its skills, commands, agents, hooks, MCP and LSP servers',
        description:
          'Works on held snapshots. Every list is present (empty when the plugin has none). A path escaping ' +
          'its plugin is ignored; a declaration that cannot be parsed leaves that component out and does not fail ' +
          'the call.',
      },
    },
    async (request) => {
      const { snapshot } = await addressedSnapshot(deps, request.params.id);
      const inventory = inventoryOf(layoutOf(await snapshotTree(deps, snapshot)));
      return {
        snapshotId: snapshot.id,
        sha: snapshot.sha,
        state: snapshot.state,
        plugins: inventory.plugins.map((p) => ({
          ...p,
          skills: [...p.skills],
          commands: [...p.commands],
          agents: [...p.agents],
          hooks: [...p.hooks],
          mcpServers: [...p.mcpServers],
          lspServers: [...p.lspServers],
        })),
      };
    },
  );
}
