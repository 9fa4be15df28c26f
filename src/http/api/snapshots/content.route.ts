import { Type } from 'typebox';
import { gitText } from '../../../adapters/git/git-process.ts';
import { listTree } from '../../../adapters/git/tree-reader.ts';
import { licenseReport } from '../../../adapters/vetting/license.connector.ts';
import { contentDiff, skillStatuses, type DiffSide } from '../../../domain/plugin/content-diff.ts';
import { inventoryOf } from '../../../domain/plugin/inventory.ts';
import { layoutOf, readLayout } from '../../../domain/plugin/layout.ts';
import { manifestPath } from '../../../domain/snapshot/manifest-policy.ts';
import { licenseEvaluations } from '../../../domain/vetting/license.ts';
import { liveMarketplaces } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotsOf, type SnapshotRecord } from '../../../projections/snapshots/snapshots.queries.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import { snapshotTree } from '../../../application/policy-evaluation.ts';
import { addressedSnapshot } from '../../../application/addressed-snapshot.ts';

const tags = ['snapshots'];
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Component = Type.Object({ name: Type.String(), path: Type.String() });
const PluginInventory = Type.Object({
  name: Type.String(), description: NullableString, source: Type.String(),
  skills: Type.Array(Component), commands: Type.Array(Component), agents: Type.Array(Component),
  hooks: Type.Array(Type.Object({
    event: Type.String(), matcher: NullableString, type: Type.String(), runs: Type.String(), location: Type.String(),
    declaredBy: Type.String({ description: '`plugin`, `skill <name>` or `agent <name>`' }),
  })),
  mcpServers: Type.Array(Component), lspServers: Type.Array(Component),
});

/** The git tree id of every directory of a commit ('' is the root tree). */
async function treeIds(repo: string, sha: string): Promise<(dir: string) => string | null> {
  const [entries, root] = await Promise.all([listTree(repo, sha, { trees: true }), gitText(['-C', repo, 'rev-parse', `${sha}^{tree}`])]);
  const trees = new Map(entries.filter((e) => e.type === 'tree').map((e) => [e.path, e.oid]));
  return (dir) => (dir === '' ? root : trees.get(dir) ?? null);
}

/** The live approved snapshot a change is judged against: the newest approval other than this one. */
function baselineOf(snapshot: SnapshotRecord, siblings: readonly SnapshotRecord[]): SnapshotRecord | null {
  const approved = siblings.filter((s) => s.state === 'approved' && s.id !== snapshot.id && s.deletedAt === null);
  approved.sort((a, b) => (b.approvedAt ?? '').localeCompare(a.approvedAt ?? '') || b.id - a.id);
  return approved[0] ?? null;
}

export function contentRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get('/api/v1/snapshots/:id/content', {
    schema: {
      tags, summary: 'Content inventory: every plugin with its skills, commands, agents, hooks, MCP and LSP servers', params: IdParams,
      description: 'Works on held snapshots. Every list is present (empty when the plugin has none). A path escaping its plugin is ignored; '
        + 'a declaration that cannot be parsed leaves that component out and does not fail the call.',
      response: { 200: Type.Object({ snapshotId: Type.Integer(), sha: Type.String(), state: Type.String(), plugins: Type.Array(PluginInventory) }), ...problemResponses(404) },
    },
  }, async (request) => {
    const { snapshot } = await addressedSnapshot(deps, request.params.id);
    const inventory = inventoryOf(layoutOf(await snapshotTree(deps, snapshot)));
    return { snapshotId: snapshot.id, sha: snapshot.sha, state: snapshot.state, plugins: inventory.plugins.map((p) => ({
        ...p, skills: [...p.skills], commands: [...p.commands], agents: [...p.agents], hooks: [...p.hooks], mcpServers: [...p.mcpServers], lspServers: [...p.lspServers],
      })),
    };
  });

  app.get('/api/v1/snapshots/:id/content-diff', {
    schema: {
      tags, summary: 'Plugins and skills against the live approved baseline: added, removed, changed, moved, unchanged', params: IdParams,
      description: 'The baseline is the newest live approved snapshot of the marketplace other than this one (null when there is none: everything is added). '
        + 'A skill is changed when anything under its directory differs (git tree comparison). A skill moved between plugins is reported once, on its new '
        + 'plugin, as moved (changed, with movedFromPlugin still set, if its content changed too). No file text is returned.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), sha: Type.String(), state: Type.String(), baselineSnapshotId: Type.Union([Type.Integer(), Type.Null()]), baselineSha: NullableString,
          plugins: Type.Array(Type.Object({
            name: Type.String(), description: NullableString, source: Type.String(), status: literalUnion(['added', 'removed', 'changed', 'unchanged'] as const),
            skills: Type.Array(Type.Object({ name: Type.String(), path: Type.String(), status: literalUnion(skillStatuses), movedFromPlugin: NullableString })),
          })),
          summary: Type.Object(Object.fromEntries(skillStatuses.map((s) => [s, Type.Integer()])) as Record<(typeof skillStatuses)[number], ReturnType<typeof Type.Integer>>),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    const baseline = baselineOf(snapshot, await snapshotsOf(deps.pool, [marketplace.id]));
    const side = async (s: SnapshotRecord): Promise<DiffSide> => {
      const [tree, treeOf] = await Promise.all([snapshotTree(deps, s), treeIds(repo, s.sha)]);
      return { layout: layoutOf(tree), treeOf };
    };
    const diff = contentDiff(await side(snapshot), baseline ? await side(baseline) : null);
    return {
      snapshotId: snapshot.id, sha: snapshot.sha, state: snapshot.state, baselineSnapshotId: baseline?.id ?? null, baselineSha: baseline?.sha ?? null, ...diff,
    };
  });

  app.get('/api/v1/snapshots/:id/licenses', {
    schema: {
      tags, summary: 'License report: SPDX identification from LICENSE files and manifests, evaluated under the allow and ban lists in force', params: IdParams,
      description: '`spdxId` null is the unknown-license state; an empty `licenses` means no license information at all. Recomputed on every read '
        + 'under gateway.vetting.license.allow and .ban.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), sha: Type.String(),
          licenses: Type.Array(Type.Object({
            spdxId: NullableString, source: literalUnion(['file', 'manifest'] as const), location: Type.String(), declared: NullableString, evaluation: literalUnion(licenseEvaluations),
          })),
          allowed: Type.Array(Type.String()), banned: Type.Array(Type.String()),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot } = await addressedSnapshot(deps, request.params.id);
    return { snapshotId: snapshot.id, sha: snapshot.sha, ...licenseReport(await snapshotTree(deps, snapshot)) };
  });

  app.get('/api/v1/snapshots/:id/name-collisions', {
    schema: {
      tags, summary: "This snapshot's plugin names that another served marketplace also claims, or that it claims twice", params: IdParams,
      description: 'Such a name would be published for no claimant in the virtual catalog. `marketplaces` is in name order.',
      response: {
        200: Type.Object({
          snapshotId: Type.Integer(), marketplace: Type.String(),
          collisions: Type.Array(Type.Object({ name: Type.String(), marketplaces: Type.Array(Type.String()) })),
        }),
        ...problemResponses(404),
      },
    },
  }, async (request) => {
    const { snapshot, marketplace, repo } = await addressedSnapshot(deps, request.params.id);
    const namesAt = async (repository: string, sha: string): Promise<string[]> => {
      const text = (await deps.gitStore.readFile(repository, sha, manifestPath, deps.vetting.maxFileBytes))?.toString('utf8') ?? null;
      if (text === null) return [];
      const file = { path: manifestPath, size: text.length, text, binary: false, oversized: false };
      return readLayout(new Map([[manifestPath, file]])).plugins.map((p) => p.name);
    };
    const own = await namesAt(repo, snapshot.sha);
    const claims = new Map<string, string[]>();
    for (const name of own) claims.set(name, [...(claims.get(name) ?? []), marketplace.name]);
    for (const other of await liveMarketplaces(deps.pool)) {
      if (other.id === marketplace.id) continue;
      const served = await deps.gitStore.servedSha(other.id);
      if (served === null) continue;
      for (const name of await namesAt(deps.gitStore.quarantinePath(other.id), served)) {
        if (claims.has(name)) claims.set(name, [...claims.get(name)!, other.name]);
      }
    }
    const collisions = [...claims].filter(([, by]) => by.length > 1)
      .map(([name, by]) => ({ name, marketplaces: [...by].sort() }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { snapshotId: snapshot.id, marketplace: marketplace.name, collisions };
  });
}
