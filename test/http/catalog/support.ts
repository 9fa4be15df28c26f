// Shared by the catalog tests: marketplaces served by real upstreams, approved through the API.
import type { Test } from 'tap';
import type { Client } from '../../support/assert.ts';
import { eventually, expectJson } from '../../support/assert.ts';
import { marketplaceFiles, serveUpstream, type Files } from '../../support/upstream.ts';

export type Approved = Readonly<{ id: number; marketplaceId: number; sha: string; name: string }>;

/** A marketplace with relative plugins and, when `rooted` is given, a plugin at the marketplace root (`source: "./"`). */
export function filesWith(name: string, plugins: readonly string[], rooted?: string): Files {
  const files: Record<string, string> = { ...marketplaceFiles(name, plugins) };
  if (rooted === undefined) return files;
  const manifest = JSON.parse(files['.claude-plugin/marketplace.json']!) as { plugins: unknown[] };
  manifest.plugins.push({ name: rooted, source: './', description: `the ${rooted} plugin, at the marketplace root` });
  files['.claude-plugin/marketplace.json'] = JSON.stringify(manifest, null, 2);
  files[`skills/${rooted}-skill/SKILL.md`] =
    `---\nname: ${rooted}-skill\ndescription: a skill of ${rooted}\n---\nDo the ${rooted} thing.\n`;
  return files;
}

/**
 * Registers `name` on a fresh upstream serving `files`, ingests and approves it, then waits for the catalog build
 * that follows the approval (the approval answers before it) to serve the approved commit.
 */
export async function approveMarketplace(t: Test, admin: Client, name: string, files: Files): Promise<Approved> {
  const upstream = await serveUpstream(t, files, name);
  const registered = await expectJson<{ id: number }>(
    t,
    await admin.post('/api/v1/marketplaces', { name, url: upstream.url }),
    201,
    `register ${name}`,
  );
  const snapshot = await expectJson<{ id: number; sha: string }>(
    t,
    await admin.post(`/api/v1/marketplaces/${name}/ingest`),
    201,
    `ingest ${name}`,
  );
  await expectJson(t, await admin.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, `approve ${name}`);
  await catalogServing(admin, name, snapshot.sha);
  return { id: snapshot.id, marketplaceId: registered.id, sha: snapshot.sha, name };
}

export type Revision = {
  sha: string;
  generatedAt: string;
  constituents: Array<{ marketplace: string; sha: string }>;
  collisions: Array<{ name: string; marketplaces: string[] }>;
};

/**
 * The catalog's revision once it serves commit `sha` of marketplace `name` (within 30 s); null at once when the
 * catalog is disabled.
 */
export const catalogServing = (client: Client, name: string, sha: string): Promise<Revision | null> =>
  eventually(async () => {
    const answer = await client.get('/api/v1/catalog');
    if (answer.status !== 200) return /disabled/.test(await answer.text()) ? { disabled: true } : null;
    const served = (await answer.json()) as Revision;
    return served.constituents.some((c) => c.marketplace === name && c.sha === sha) ? served : null;
  }, 30_000).then((found) => ('disabled' in found ? null : found));
