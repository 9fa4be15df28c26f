import t, { type Test } from 'tap';
import type { Clock } from '../../../src/adapters/system/clock.ts';
import { existsSync } from 'node:fs';
import { externalCachePath } from '../../../src/adapters/git/external-cache.ts';
import { compactionPass } from '../../../src/application/retention/compaction.duty.ts';
import type { CommandMeta } from '../../../src/domain/kernel/decider.ts';
import { expectJson, ledger, session, type Client } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitIn, serveUpstream } from '../../support/upstream.ts';

// A purge's "objects no other live ref reaches leave the quarantine". A composite serves each
// external plugin's tree under .gateway-external/<name>, pinned as refs/quarantine/external/<tree>; once no
// remaining snapshot row of the marketplace uses that tree, compaction removes the pin before its prune, so
// the tree's objects leave with the composites that served it. A tree a remaining snapshot uses keeps its pin.

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root', GATEWAY_WEBHOOKS_ENABLED: 'false' };
const hour = 3_600_000;

type Snapshot = { id: number; marketplaceId: number; sha: string; upstreamSha: string; purgeAfter?: string };

const meta = (): CommandMeta => ({
  principal: 'system',
  actorType: 'system',
  at: new Date().toISOString(),
  correlationId: 'compaction-externals-test',
});

const clockAhead = (offsetMs: number): Clock => ({
  now: () => new Date(Date.now() + offsetMs),
  instant: () => new Date(Date.now() + offsetMs).toISOString(),
});

const present = (repo: string, object: string) =>
  gitIn(repo, 'cat-file', '-e', object).then(
    () => true,
    () => false,
  );

const externalPins = async (repo: string) =>
  (await gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/quarantine/external/'))
    .split('\n')
    .filter((r) => r !== '');

/** Soft-deletes the snapshot and runs a pass past its purgeAfter; answers what the pass did. */
async function purge(t: Test, gw: TestGateway, root: Client, snap: Snapshot) {
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${snap.id}`), 200);
  const due = Date.parse(deleted.purgeAfter!) - Date.now() + hour;
  const pass = await compactionPass({ ...gw.deps, clock: clockAhead(due) }, meta());
  t.match(pass, { acted: 1 }, `${snap.id} purged`);
  return pass;
}

t.test("a purge removes the external pins no remaining snapshot uses, and their trees' objects", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const skill = (text: string) => `---\nname: lint\ndescription: lint things\n---\n${text}\n`;
  const tools = await serveUpstream(
    t,
    {
      'plugins/linter/.claude-plugin/plugin.json': '{"name":"linter"}',
      'plugins/linter/skills/lint/SKILL.md': skill('Lint, first edition.'),
    },
    'tools',
  );
  const upstream = await serveUpstream(
    t,
    {
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'ext',
        owner: { name: 'Upstream' },
        plugins: [
          { name: 'local', source: './plugins/local' },
          { name: 'linter', source: { source: 'git-subdir', url: tools.url, path: 'plugins/linter' } },
        ],
      }),
      'plugins/local/.claude-plugin/plugin.json': '{"name":"local"}',
    },
    'ext',
  );
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'ext', url: upstream.url }), 201);
  const ingest = () => root.post('/api/v1/marketplaces/ext/ingest').then((r) => expectJson<Snapshot>(t, r, 201));
  const a = await ingest();
  t.not(a.sha, a.upstreamSha, 'a composite');
  await upstream.commit({ 'plugins/local/README.md': 'a local change\n' });
  const b = await ingest();
  await tools.commit({ 'plugins/linter/skills/lint/SKILL.md': skill('Lint, second edition.') });
  await upstream.commit({ 'plugins/local/README.md': 'another local change\n' });
  const c = await ingest();

  const repo = gw.core.gitStore.quarantinePath(a.marketplaceId);
  const treeOf = (snap: Snapshot) => gitIn(repo, 'rev-parse', `${snap.sha}:.gateway-external/linter`);
  const [first, second] = [await treeOf(a), await treeOf(c)];
  t.equal(await treeOf(b), first, 'a and b serve the first edition of the external plugin');
  t.not(second, first, 'c serves the second');
  const firstOnly = await gitIn(repo, 'rev-parse', `${first}:skills/lint/SKILL.md`);
  const secondOnly = await gitIn(repo, 'rev-parse', `${second}:skills/lint/SKILL.md`);
  const pin = (tree: string) => `refs/quarantine/external/${tree}`;
  t.strictSame((await externalPins(repo)).sort(), [pin(first), pin(second)].sort(), 'both trees pinned');

  t.test('a tree a remaining snapshot uses keeps its pin and its objects', async (t) => {
    await purge(t, gw, root, a);
    t.notOk(await present(repo, a.sha), "a's composite is gone");
    t.ok((await externalPins(repo)).includes(pin(first)), 'b still uses the first tree: its pin stays');
    t.ok(await present(repo, firstOnly), "and the first edition's blob");
  });

  t.test('once no snapshot uses it, the pin goes before the prune, and the objects with it', async (t) => {
    await purge(t, gw, root, b);
    t.strictSame(await externalPins(repo), [pin(second)], "only c's tree is still pinned");
    t.notOk(await present(repo, first), 'git cat-file -e: the first tree is gone');
    t.notOk(await present(repo, firstOnly), 'and the blob only it reached');
    t.ok(await present(repo, second), "c's tree stays");
    t.ok(await present(repo, secondOnly), 'with its blob');
    const body = await root.get(`/api/v1/snapshots/${c.id}/file?path=.gateway-external/linter/skills/lint/SKILL.md`);
    t.match(await expectJson<{ text: string }>(t, body, 200), { text: /second edition/ }, 'c reads as before');
  });
});

// Housekeeping: the cache of an external repository (`<git root>/external-cache/<sha256 of url>.git`) goes once
// no live snapshot's marketplace file names the repository and it has not been used for
// gateway.housekeeping.external-cache-max-age (7 days; the pass runs 15 days ahead). A cache a live snapshot
// names stays, however old.
t.test('the external cache shrinks once the upstream no longer points at a repository', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const plugin = (name: string) => ({
    [`plugins/${name}/.claude-plugin/plugin.json`]: JSON.stringify({ name }),
    [`plugins/${name}/README.md`]: `${name}\n`,
  });
  const tools = await serveUpstream(t, plugin('linter'), 'tools');
  const other = await serveUpstream(t, plugin('formatter'), 'other');
  const manifest = (withLinter: boolean) =>
    JSON.stringify({
      name: 'ext',
      owner: { name: 'Upstream' },
      plugins: [
        { name: 'formatter', source: { source: 'git-subdir', url: other.url, path: 'plugins/formatter' } },
        ...(withLinter
          ? [{ name: 'linter', source: { source: 'git-subdir', url: tools.url, path: 'plugins/linter' } }]
          : []),
      ],
    });
  const upstream = await serveUpstream(t, { '.claude-plugin/marketplace.json': manifest(true) }, 'ext');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'ext', url: upstream.url }), 201);
  const ingest = () => root.post('/api/v1/marketplaces/ext/ingest').then((r) => expectJson<Snapshot>(t, r, 201));
  const first = await ingest();
  const cacheOf = (url: string) => externalCachePath(gw.core.gitStore.root, url);
  t.ok(existsSync(cacheOf(tools.url)) && existsSync(cacheOf(other.url)), 'both repositories cached');
  await upstream.commit({ '.claude-plugin/marketplace.json': manifest(false) }, 'the linter leaves');
  await ingest();

  const early = await compactionPass({ ...gw.deps, clock: clockAhead(15 * 24 * hour) }, meta());
  t.equal(early.swept.externalCaches, 0, 'the first snapshot still names the linter repository: nothing removed');
  t.ok(existsSync(cacheOf(tools.url)), 'its cache stays');

  const pass = await purge(t, gw, root, first);
  t.equal(pass.swept.externalCaches, 1, 'once the snapshot naming it is purged, one cache goes');
  t.notOk(existsSync(cacheOf(tools.url)), "the linter repository's cache is removed");
  t.ok(existsSync(cacheOf(other.url)), 'the cache a live snapshot names stays, stale as it is');
  const [entry] = await ledger(gw, 'external-caches-pruned');
  t.match(entry, { principal: 'system', detail: /^1 external repository caches/ }, 'on the ledger');

  const again = await compactionPass(
    {
      ...gw.deps,
      clock: clockAhead(15 * 24 * hour),
      housekeeping: { ...gw.deps.housekeeping, externalCacheMaxAgeMs: 0 },
    },
    meta(),
  );
  t.equal(again.swept.externalCaches, 0, 'a max age of zero keeps every cache');
});
