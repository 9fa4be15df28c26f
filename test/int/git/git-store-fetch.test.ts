import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { initBare } from '../../../src/adapters/git/bare-repo.ts';
import { CatalogStore } from '../../../src/adapters/git/catalog-store.ts';
import { gitText } from '../../../src/adapters/git/git-process.ts';
import { GitStore, UpstreamError, type IngestLimits } from '../../../src/adapters/git/git-store.ts';
import { pruneQuarantine } from '../../../src/adapters/git/quarantine-refs.ts';
import type { ExternalPlugin } from '../../../src/domain/plugin/manifest-policy.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// What the gateway's repositories are made of (bare-repo.ts) and how fetches land in quarantine: through a
// staging ref that never outlives the fetch, pinned under refs/quarantine/ only when within the limits.

const roomy: IngestLimits = { timeoutMs: 60_000, maxPackBytes: 1024 * 1024 * 1024, maxObjects: 1_000_000 };
const tight: IngestLimits = { ...roomy, maxObjects: 3 };

const config = (repo: string, key: string) => gitText(['-C', repo, 'config', '--get', key]).catch(() => '(unset)');
const refsOf = async (repo: string) =>
  (await gitText(['-C', repo, 'for-each-ref', '--format=%(refname)'])).split('\n').filter(Boolean);
const objectCount = async (repo: string) => {
  const text = await gitText(['-C', repo, 'count-objects', '-v']);
  return ['count', 'in-pack'].reduce(
    (sum, key) => sum + Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0),
    0,
  );
};

function scratch(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-git-store-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

t.test('every repository the gateway keeps is set up alike, once', async (t) => {
  const root = scratch(t);
  const gitStore = new GitStore(join(root, 'git'));
  const catalogStore = new CatalogStore(join(root, 'catalog'));
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const { sha } = await gitStore.fetchUpstream(1, upstream.url, roomy);
  await catalogStore.fetchConstituent(1, gitStore.quarantinePath(1), sha);
  await catalogStore.serve('catalog', sha);
  const repos = {
    quarantine: gitStore.quarantinePath(1),
    published: await gitStore.ensurePublished(1),
    'catalog work': catalogStore.workPath,
    'catalog served': catalogStore.servedPath('catalog'),
  };
  for (const [what, repo] of Object.entries(repos)) {
    t.equal(await gitText(['-C', repo, 'rev-parse', '--is-bare-repository']), 'true', `${what}: bare`);
    t.equal(await gitText(['-C', repo, 'symbolic-ref', 'HEAD']), 'refs/heads/main', `${what}: HEAD is main`);
    t.equal(await config(repo, 'core.logAllRefUpdates'), 'false', `${what}: no reflog`);
    t.equal(await config(repo, 'gc.auto'), '0', `${what}: no automatic gc`);
  }
  await gitText(['-C', repos.quarantine, 'config', 'gateway.test', 'kept']);
  t.equal(await initBare(repos.quarantine), repos.quarantine, 'an existing repository is returned as it is');
  t.equal(await config(repos.quarantine, 'gateway.test'), 'kept', 'and not initialized again');
});

t.test('an upstream fetch pins its commit and leaves no staging ref; one over the limits leaves nothing', async (t) => {
  const gitStore = new GitStore(scratch(t));
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']));
  const quarantine = gitStore.quarantinePath(1);

  const refused = await gitStore.fetchUpstream(1, upstream.url, tight).then(
    () => null,
    (error: unknown) => error,
  );
  t.ok(refused instanceof UpstreamError, 'refused as an upstream error');
  t.equal((refused as UpstreamError).reason, 'upstream too large');
  t.match((refused as UpstreamError).rootCause, /^fetching added \d+ objects and \d+ bytes$/);
  t.match((refused as UpstreamError).nextStep, /at most 3 objects and \d+ bytes per ingest/);
  t.strictSame(await refsOf(quarantine), [], 'no staging ref, no pin');
  // Left unreachable, not pruned by the store (another ingest may be writing): the ingest prunes it under the
  // quarantine's exclusive lock (application/marketplaces/ingest.use-case.ts), else compaction does.
  await pruneQuarantine(quarantine);
  t.equal(await objectCount(quarantine), 0, 'what the refused fetch brought is unreachable: a prune leaves nothing');

  const { sha, branch } = await gitStore.fetchUpstream(1, upstream.url, roomy);
  t.equal(branch, 'main');
  t.strictSame(await refsOf(quarantine), [`refs/quarantine/${sha}`], 'pinned, and the staging ref is gone');
  t.equal(sha, await gitText(['-C', upstream.bare, 'rev-parse', 'refs/heads/main']), 'the upstream tip');
});

t.test(
  'an external source is pinned with its plugin tree; refusals name the plugin and leave no staging ref',
  async (t) => {
    const gitStore = new GitStore(scratch(t));
    const upstream = await serveUpstream(t, marketplaceFiles('tools', ['gamma']), 'tools');
    const quarantine = gitStore.quarantinePath(1);
    const tip = await gitText(['-C', upstream.bare, 'rev-parse', 'refs/heads/main']);
    const external: ExternalPlugin = {
      name: 'gamma',
      kind: 'git-subdir',
      url: upstream.url,
      ref: null,
      sha: null,
      path: 'plugins/gamma',
    };

    const tooLarge = await gitStore.fetchExternal(1, external, tight).then(
      () => null,
      (error: unknown) => error,
    );
    t.ok(tooLarge instanceof UpstreamError);
    t.equal((tooLarge as UpstreamError).reason, "external plugin source of 'gamma' too large");
    t.match((tooLarge as UpstreamError).rootCause, /^fetching added \d+ objects$/);
    t.strictSame(await refsOf(quarantine), [], 'nothing pinned, no staging ref');

    const missing = { ...external, path: 'plugins/missing' };
    const noDir = await gitStore.fetchExternal(1, missing, roomy).then(
      () => null,
      (error: unknown) => error,
    );
    t.equal((noDir as UpstreamError).reason, "external plugin source of 'gamma' has no directory 'plugins/missing'");
    const absent = { ...external, ref: 'main', sha: '0'.repeat(40) };
    const unreadable = await gitStore.fetchExternal(1, absent, roomy).then(
      () => null,
      (error: unknown) => error,
    );
    t.equal((unreadable as UpstreamError).reason, "external plugin source of 'gamma' unreadable");
    t.match((unreadable as UpstreamError).nextStep, `has ${'0'.repeat(40)}`);
    t.strictSame(await refsOf(quarantine), [], 'no staging ref after a refusal');

    const { commit, tree } = await gitStore.fetchExternal(1, external, roomy);
    t.equal(commit, tip);
    t.equal(tree, await gitText(['-C', upstream.bare, 'rev-parse', `${tip}:plugins/gamma`]), 'the plugin directory');
    t.strictSame(
      await refsOf(quarantine),
      [`refs/quarantine/external/${tree}`],
      'the plugin tree pinned under external/, the staging ref gone',
    );
  },
);
