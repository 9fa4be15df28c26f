import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { externalCachePath } from '../../../src/adapters/git/external-cache.ts';
import { resolveExternalSources, type ExternalResolution } from '../../../src/adapters/git/external-sources.ts';
import { git, gitText } from '../../../src/adapters/git/git-process.ts';
import { GitStore, type IngestLimits } from '../../../src/adapters/git/git-store.ts';
import type { ExternalPlugin } from '../../../src/domain/plugin/manifest-policy.ts';
import { gitIn, marketplaceFiles, serveRepos, serveUpstream } from '../../support/upstream.ts';

// Resolution with bounded concurrency, one fetch per distinct repository however many
// plugins point into it, partial clones (`--filter=blob:none`, sparse for `git-subdir`), and a cache so an
// unchanged pin is not fetched again on the next ingest. An external source that cannot be read
// (unreachable, missing commit, over a limit, …) withholds that plugin instead of failing the ingest.

const roomy: IngestLimits = { timeoutMs: 60_000, maxPackBytes: 1024 * 1024 * 1024, maxObjects: 1_000_000 };

function scratch(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-externals-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

type Repo = Awaited<ReturnType<typeof serveRepo>>;

/**
 * One upstream repository behind its own `git http-backend` on loopback, so the requests it answers
 * are its own. `filter`: the server allows partial fetches (`uploadpack.allowFilter`, as GitHub does).
 */
async function serveRepo(t: Test, name: string, files: Readonly<Record<string, string>>, filter = true) {
  const root = scratch(t);
  const bare = join(root, `${name}.git`);
  const work = join(root, 'work');
  await gitIn(root, 'init', '--bare', '--quiet', '--initial-branch=main', bare);
  if (filter) await gitIn(bare, 'config', 'uploadpack.allowFilter', 'true');
  await gitIn(root, 'init', '--quiet', '--initial-branch=main', work);
  const commit = async (changed: Readonly<Record<string, string>>) => {
    for (const [path, content] of Object.entries(changed)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    await gitIn(work, 'add', '-A');
    await gitIn(work, 'commit', '--quiet', '-m', 'update');
    await gitIn(work, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
    return gitIn(work, 'rev-parse', 'HEAD');
  };
  const first = await commit(files);
  const server = await serveRepos(t, root);
  const treeOf = (commit: string, path: string) =>
    gitIn(bare, 'rev-parse', path === '' ? `${commit}^{tree}` : `${commit}:${path}`);
  return { url: server.url(name), bare, first, commit, treeOf, hits: server.hits, close: server.close };
}

/** A plugin directory with `count` files besides its manifest. */
function pluginFiles(prefix: string, name: string, count = 2): Record<string, string> {
  const files: Record<string, string> = {
    [`${prefix}.claude-plugin/plugin.json`]: JSON.stringify({ name, version: '1.0.0' }),
  };
  for (let i = 0; i < count; i++)
    files[`${prefix}skills/${name}-${i}/SKILL.md`] =
      `---\nname: ${name}-${i}\ndescription: skill ${i}\n---\n${name} ${i}\n`;
  return files;
}

const subdir = (name: string, repo: Repo, path: string, pin: Partial<ExternalPlugin> = {}): ExternalPlugin => ({
  name,
  kind: 'git-subdir',
  url: repo.url,
  ref: null,
  sha: null,
  path,
  ...pin,
});
const whole = (name: string, repo: Repo, pin: Partial<ExternalPlugin> = {}): ExternalPlugin => ({
  name,
  kind: 'url',
  url: repo.url,
  ref: null,
  sha: null,
  path: '',
  ...pin,
});

const okNames = (outcomes: readonly ExternalResolution[]) => outcomes.filter((o) => o.ok).map((o) => o.name);
const present = (repo: string, oid: string) =>
  git(['-C', repo, 'cat-file', '-e', oid]).then(
    () => true,
    () => false,
  );

t.test(
  'many plugins over few repositories: each repository is fetched once, and an unchanged pin not again',
  async (t) => {
    const mono = await serveRepo(t, 'mono', {
      ...Object.assign({}, ...['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((p) => pluginFiles(`plugins/${p}/`, p))),
      'README.md': 'a monorepo of plugins\n',
    });
    const single = await serveRepo(t, 'single', pluginFiles('', 'single'));
    const pinned = await serveRepo(t, 'pinned', pluginFiles('', 'pinned'));
    const externals = [
      subdir('p0', mono, 'plugins/p0'),
      subdir('p1', mono, 'plugins/p1', { ref: 'main' }),
      subdir('p2', mono, 'plugins/p2', { sha: mono.first }),
      subdir('p3', mono, 'plugins/p3', { ref: 'refs/heads/main' }),
      subdir('p4', mono, 'plugins/p4'),
      subdir('p5', mono, 'plugins/p5', { sha: mono.first, ref: 'main' }),
      whole('single-a', single),
      whole('single-b', single, { sha: single.first }),
      whole('pinned', pinned, { sha: pinned.first }),
    ];

    // The same repository with one plugin pointing into it: what one repository costs, in requests.
    const alone = new GitStore(join(scratch(t), 'git'));
    const monoBefore = mono.hits();
    t.ok((await resolveExternalSources(alone, 1, [externals[0]!], { limits: roomy }))[0]!.ok);
    const onePlugin = mono.hits() - monoBefore;

    const store = new GitStore(join(scratch(t), 'git'));
    const hits = () => ({ mono: mono.hits(), single: single.hits(), pinned: pinned.hits() });
    const start = hits();
    const first = await resolveExternalSources(store, 7, externals, { limits: roomy, concurrency: 2 });
    const afterFirst = hits();
    t.strictSame(
      okNames(first),
      externals.map((e) => e.name),
      'every source resolves',
    );
    for (const [i, outcome] of first.entries()) {
      const external = externals[i]!;
      const repo = [mono, single, pinned].find((r) => r.url === external.url)!;
      t.equal(
        outcome.ok && outcome.tree,
        await repo.treeOf(repo.first, external.path),
        `${external.name}: its plugin tree`,
      );
      t.equal(outcome.ok && outcome.commit, repo.first, `${external.name}: the commit it names`);
    }
    t.equal(afterFirst.mono - start.mono, onePlugin, 'six plugins into one repository cost what one does');
    t.ok(onePlugin <= 6, `one ls-remote, one fetch of the commit, one fetch of the blobs (${onePlugin} requests)`);
    t.ok(afterFirst.pinned - start.pinned <= 2, 'a repository pinned by sha only: one fetch, no ls-remote');

    const second = await resolveExternalSources(store, 7, externals, { limits: roomy });
    const afterSecond = hits();
    t.strictSame(second, first, 'the same outcomes');
    t.equal(afterSecond.pinned - afterFirst.pinned, 0, 'an unchanged sha pin: no request at all');
    t.equal(
      afterSecond.mono - afterFirst.mono,
      1,
      'unchanged refs: one ls-remote (one request: the protocol v0 advertisement), no fetch',
    );
    t.equal(afterSecond.single - afterFirst.single, 1, 'unchanged refs: one ls-remote, no fetch');

    // After a restart (a new store on the same directory): the cache answers, still no fetch.
    const restarted = new GitStore(store.root);
    t.strictSame(
      await resolveExternalSources(restarted, 7, externals, { limits: roomy }),
      first,
      'after a restart too',
    );
    const afterRestart = hits();
    t.equal(afterRestart.pinned - afterSecond.pinned, 0, 'after a restart, an unchanged sha pin: no request');
    t.equal(afterRestart.mono - afterSecond.mono, 1, 'after a restart, unchanged refs: one ls-remote, no fetch');

    // The branch moves: the ref sources follow it, the sha pins stay; one fetch again.
    const next = await mono.commit({
      'plugins/p0/skills/p0-0/SKILL.md': '---\nname: p0-0\ndescription: changed\n---\n',
    });
    const third = await resolveExternalSources(store, 7, externals, { limits: roomy });
    t.same(
      third.slice(0, 6).map((o) => o.ok && o.commit),
      [next, next, mono.first, next, next, mono.first],
      'refs follow the branch, sha pins stay',
    );
    t.equal(third[0]!.ok && third[0]!.tree, await mono.treeOf(next, 'plugins/p0'), 'the changed plugin tree');
    t.equal(third[1]!.ok && third[1]!.tree, first[1]!.ok && first[1]!.tree, 'an unchanged directory keeps its tree');
    t.equal(mono.hits() - afterRestart.mono, onePlugin, 'a moved branch: one ls-remote, one fetch, one blob fetch');
  },
);

t.test(
  'an unreachable repository, a missing sha, ref or directory and a plugin over the limits fail that plugin alone',
  async (t) => {
    const repo = await serveRepo(t, 'tools', {
      ...pluginFiles('plugins/small/', 'small'),
      ...pluginFiles('plugins/large/', 'large'),
      // Many files, few directories: the blob-less fetch of the repository stays small, the plugin does not.
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`plugins/large/data/${i}.txt`, `${i}\n`])),
    });
    const gone = await serveRepo(t, 'gone', pluginFiles('', 'gone'));
    await gone.close();
    const store = new GitStore(join(scratch(t), 'git'));
    const externals = [
      subdir('small', repo, 'plugins/small'),
      subdir('small-pinned', repo, 'plugins/small', { sha: repo.first }),
      subdir('no-commit', repo, 'plugins/small', { sha: 'f'.repeat(40) }),
      subdir('no-branch', repo, 'plugins/small', { ref: 'release' }),
      subdir('no-directory', repo, 'plugins/missing'),
      subdir('a-file', repo, 'plugins/small/.claude-plugin/plugin.json'),
      subdir('large', repo, 'plugins/large'),
      whole('gone-a', gone),
      whole('gone-b', gone, { sha: gone.first }),
    ];
    const limits = { ...roomy, maxObjects: 30 };
    const outcomes = await resolveExternalSources(store, 1, externals, { limits, concurrency: 4 });
    t.strictSame(okNames(outcomes), ['small', 'small-pinned'], 'only the readable sources within the limits');
    const failure = (name: string) => {
      const outcome = outcomes.find((o) => o.name === name)!;
      return outcome.ok ? null : { reason: outcome.reason, rootCause: outcome.rootCause, nextStep: outcome.nextStep };
    };
    t.match(failure('no-commit'), {
      reason: "external plugin source of 'no-commit' unreadable",
      rootCause: `the repository has no commit ${'f'.repeat(40)}`,
      nextStep: `has ${'f'.repeat(40)}`,
    });
    t.match(failure('no-branch'), {
      rootCause: "the repository has no branch or tag 'release'",
      nextStep: 'has release',
    });
    t.match(failure('no-directory'), {
      reason: "external plugin source of 'no-directory' has no directory 'plugins/missing'",
      rootCause: `${repo.url} at ${repo.first}`,
    });
    t.match(failure('a-file'), { reason: /has no directory 'plugins\/small\/.claude-plugin\/plugin.json'$/ });
    t.match(failure('large'), {
      reason: "external plugin source of 'large' too large",
      rootCause: 'the plugin directory has more than 30 objects',
    });
    for (const name of ['gone-a', 'gone-b'])
      t.match(failure(name), {
        reason: `external plugin source of '${name}' unreadable`,
        rootCause: /127\.0\.0\.1|connect|Connection refused/i,
        nextStep: `check that ${gone.url} is reachable`,
      });
  },
);

t.test('a git-subdir source brings only its directory into quarantine, which stays complete', async (t) => {
  const repo = await serveRepo(t, 'mono', {
    ...pluginFiles('plugins/alpha/', 'alpha'),
    ...pluginFiles('plugins/beta/', 'beta'),
    'README.md': 'the rest of the repository\n',
  });
  const plain = await serveRepo(
    t,
    'plain',
    { ...pluginFiles('plugins/gamma/', 'gamma'), 'README.md': 'plain\n' },
    false,
  );
  const store = new GitStore(join(scratch(t), 'git'));
  const externals = [subdir('alpha', repo, 'plugins/alpha'), subdir('gamma', plain, 'plugins/gamma')];
  const outcomes = await resolveExternalSources(store, 3, externals, { limits: roomy });
  t.strictSame(okNames(outcomes), ['alpha', 'gamma'], 'both resolve, the server without partial fetches too');
  const quarantine = store.quarantinePath(3);
  const blobs = async (bare: string, path: string) =>
    (await gitIn(bare, 'ls-tree', '-r', '--format=%(objectname)', `main:${path}`)).split('\n');
  for (const oid of await blobs(repo.bare, 'plugins/alpha')) t.ok(await present(quarantine, oid), `alpha's ${oid}`);
  for (const oid of [...(await blobs(repo.bare, 'plugins/beta')), await repo.treeOf(repo.first, 'README.md')])
    t.notOk(await present(quarantine, oid), `no blob outside plugins/alpha in quarantine (${oid})`);
  const cacheOf = (r: Repo) => externalCachePath(store.root, r.url);
  t.equal(
    await gitText(['-C', cacheOf(repo), 'config', '--get-regexp', 'promisor|partialclone']).catch(() => ''),
    '',
    'the cache is a promisor for its fetches alone: no other command fetches a missing object by itself',
  );
  t.notOk(await present(cacheOf(repo), await repo.treeOf(repo.first, 'README.md')), 'nor in the partial clone');
  t.ok(
    await present(cacheOf(plain), await plain.treeOf(plain.first, 'README.md')),
    'a server without filters: a full fetch',
  );

  // The composite built later from a marketplace commit and the plugin trees: nothing missing.
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['local']), 'acme');
  const { sha } = await store.fetchUpstream(3, upstream.url, roomy);
  const trees = outcomes.map((o) => ({ name: o.name, tree: o.ok ? o.tree : '' }));
  const composite = await store.servedCommit(3, {
    upstream: sha,
    parent: null,
    externals: trees,
    manifest: '{"name":"acme","plugins":[]}\n',
    leaveOut: [],
  });
  const missing = (await gitText(['-C', quarantine, 'rev-list', '--objects', '--missing=print', composite]))
    .split('\n')
    .filter((line) => line.startsWith('?'));
  t.strictSame(missing, [], 'every object of the composite is in quarantine');
  await t.resolves(git(['-C', quarantine, 'fsck', '--connectivity-only', '--no-dangling']), 'fsck finds it connected');
  t.equal(
    await gitText(['-C', quarantine, 'config', '--get-regexp', 'promisor|partialclone']).catch(() => ''),
    '',
    'not a promisor',
  );
  t.notOk(
    readdirSync(join(quarantine, 'objects', 'pack')).some((f) => f.endsWith('.promisor')),
    'no promisor pack in quarantine',
  );
  t.ok(
    existsSync(join(quarantine, 'refs')) &&
      (await gitText(['-C', quarantine, 'for-each-ref', 'refs/quarantine/external/'])).includes(trees[0]!.tree),
    'the tree pinned',
  );
});
