// Per-plugin outcomes (docs/marketplaces.md): an external source that cannot be read (unreachable, missing
// commit, over a limit, outside the trust boundary) withholds that plugin from the composite instead of
// failing the ingest; `gateway.ingest.external-sources: require-all` keeps the strict behaviour.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { inMs, ledger } from '../../support/assert.ts';
import { devSession, type ApiAnswer } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, gitIn, serveRepos, serveUpstream, type Files } from '../../support/upstream.ts';
import { scratchDir } from '../../support/scratch.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const manifestPath = '.claude-plugin/marketplace.json';

type Entry = Readonly<{ name: string; source: unknown }>;
type Unresolved = Readonly<{ plugin: string; source: Record<string, unknown>; reason: string; nextStep: string }>;

const pluginFiles = (name: string, at = ''): Record<string, string> => ({
  [`${at}.claude-plugin/plugin.json`]: JSON.stringify({ name, version: '1.0.0', description: `the ${name} plugin` }),
  [`${at}skills/${name}-skill/SKILL.md`]: `---\nname: ${name}-skill\ndescription: a skill of ${name}\n---\nDo the ${name} thing.\n`,
});

/** Bare repositories under one root, each committed from `files`, served on one loopback port. */
async function serveSources(t: Test, repos: Readonly<Record<string, Files>>) {
  const root = scratchDir(t, 'gw-sources-');
  for (const [name, files] of Object.entries(repos)) {
    const work = join(root, `${name}-work`);
    mkdirSync(work);
    await gitIn(work, 'init', '--quiet', '--initial-branch=main');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    }
    await gitIn(work, 'add', '-A');
    await gitIn(work, 'commit', '--quiet', '-m', 'plugins');
    await gitIn(root, 'clone', '--quiet', '--bare', work, `${name}.git`);
  }
  return serveRepos(t, root);
}

/** The marketplace manifest, one entry per line group (JSON.stringify with 2 spaces, as upstreams write it). */
const manifestOf = (name: string, plugins: readonly Entry[]) =>
  JSON.stringify({ name, owner: { name: 'Upstream' }, plugins }, null, 2);

/** The line of a plugin's entry (its opening brace) in a manifest written by manifestOf. */
const entryLine = (text: string, plugin: string) =>
  text.split('\n').findIndex((line) => line.includes(`"name": "${plugin}"`));

/**
 * Ten external sources (six git-subdir over two repositories, two whole repositories, two unreachable:
 * a refused connection and a repository the server does not have) and one local plugin.
 */
async function tenSources(t: Test) {
  const served = await serveSources(t, {
    tools: Object.assign({}, ...['p1', 'p2', 'p3', 'p4'].map((p) => pluginFiles(p, `plugins/${p}/`))) as Files,
    kit: Object.assign({}, ...['p5', 'p6'].map((p) => pluginFiles(p, `plugins/${p}/`))) as Files,
    w7: pluginFiles('w7'),
    w8: pluginFiles('w8'),
  });
  const subdir = (p: string, repo: string) => ({
    name: p,
    source: { source: 'git-subdir', url: served.url(repo), path: `plugins/${p}` },
  });
  const plugins: Entry[] = [
    { name: 'local', source: './plugins/local' },
    subdir('p1', 'tools'),
    subdir('p2', 'tools'),
    { name: 'dead', source: { source: 'url', url: 'http://127.0.0.1:1/dead.git' } },
    subdir('p3', 'tools'),
    subdir('p4', 'tools'),
    subdir('p5', 'kit'),
    { name: 'missing', source: { source: 'url', url: served.url('missing') } },
    subdir('p6', 'kit'),
    { name: 'w7', source: { source: 'url', url: served.url('w7') } },
    { name: 'w8', source: { source: 'url', url: served.url('w8') } },
  ];
  const text = manifestOf('ten', plugins);
  const upstream = await serveUpstream(t, { [manifestPath]: text, ...pluginFiles('local', 'plugins/local/') }, 'ten');
  return { upstream, text, plugins };
}

const served = ['local', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'w7', 'w8'];

async function register(t: Test, api: ReturnType<typeof devSession>, name: string, url: string) {
  const registered = await api.post('/api/v1/marketplaces', { name, url });
  t.equal(registered.status, 201, registered.text);
}

async function marketplaceNamed(api: ReturnType<typeof devSession>, name: string) {
  const listed = (await api.get('/api/v1/marketplaces')).body as Array<{ name: string; snapshots: unknown[] }>;
  return listed.find((m) => m.name === name);
}

async function waiveAndApprove(t: Test, api: ReturnType<typeof devSession>, snapshotId: number) {
  const report = (await api.get(`/api/v1/snapshots/${snapshotId}/vetting`)).body as {
    uncovered: Array<{ ruleId: string }>;
  };
  for (const ruleId of new Set(report.uncovered.map((u) => u.ruleId))) {
    const waiver = await api.post(`/api/v1/snapshots/${snapshotId}/waivers`, {
      ruleId,
      scope: 'SNAPSHOT',
      justification: 'the marketplace is served without the plugins whose source could not be read',
      expiresAt: inMs(86_400_000),
    });
    t.equal(waiver.status, 201, waiver.text);
  }
  const approved = await api.post(`/api/v1/snapshots/${snapshotId}/approve`);
  t.equal(approved.status, 200, approved.text);
}

async function cloneManifest(t: Test, gw: TestGateway, api: ReturnType<typeof devSession>, repo: string) {
  const client = gitClient(t, (await api.post('/api/v1/tokens', { name: `reader-${repo}` })).body.token);
  const clone = await client.clone(`${gw.url}/git/${repo}`);
  t.ok(clone.ok, clone.stderr);
  const manifest = JSON.parse(readFileSync(join(clone.dir, manifestPath), 'utf8')) as { plugins: Entry[] };
  return { dir: clone.dir, manifest };
}

t.test(
  'a marketplace with two unreachable sources among ten ingests with eight served and two withheld and reported',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const api = devSession(gw, 'root');
    const { upstream, text } = await tenSources(t);
    await register(t, api, 'ten', upstream.url);

    const snapshot: ApiAnswer = await api.post('/api/v1/marketplaces/ten/ingest');
    t.equal(snapshot.status, 201, snapshot.text);
    t.equal(snapshot.body.state, 'held', 'the ingest succeeds and the snapshot is held for review');
    t.not(snapshot.body.sha, snapshot.body.upstreamSha, 'the resolved sources are served from a composite');
    const unresolved = snapshot.body.unresolved as Unresolved[];
    t.match(
      unresolved,
      [
        {
          plugin: 'dead',
          source: { source: 'url', url: 'http://127.0.0.1:1/dead.git' },
          reason: /^external plugin source of 'dead' unreadable: ./,
          nextStep: /127\.0\.0\.1:1\/dead\.git/,
        },
        {
          plugin: 'missing',
          source: { source: 'url', url: /\/missing\.git$/ },
          reason: /^external plugin source of 'missing' unreadable: ./,
        },
      ],
      'the snapshot records unresolved[] (plugin, source, reason), as written in the manifest',
    );
    t.equal(unresolved.length, 2);
    t.match(
      await marketplaceNamed(api, 'ten'),
      { snapshots: [{ id: snapshot.body.id, unresolved }] },
      'GET /api/v1/marketplaces shows the same',
    );

    const withheld = await ledger(gw, 'plugin-withheld');
    t.strictSame(
      withheld.map((e) => [e.marketplace, e.principal, /plugin '(\w+)' withheld/.exec(e.detail ?? '')?.[1]]),
      [
        ['ten', 'root', 'dead'],
        ['ten', 'root', 'missing'],
      ],
      'the ledger gets one entry per withheld plugin',
    );
    t.match(withheld[0]!.detail, `snapshot ${snapshot.body.id}: plugin 'dead' withheld; source {`);
    t.match(withheld[0]!.detail, '"url":"http://127.0.0.1:1/dead.git"');

    const report = (await api.get(`/api/v1/snapshots/${snapshot.body.id}/vetting`)).body;
    const sources = report.run.verdicts.find((v: { connector: string }) => v.connector === 'sources');
    t.match(
      sources,
      {
        state: 'FAIL',
        findings: [
          {
            id: 'source-unresolved',
            severity: 'HIGH',
            location: `${manifestPath}:${entryLine(text, 'dead')}`,
            message:
              /^plugin 'dead' is withheld: its source \{.*"url":"http:\/\/127\.0\.0\.1:1\/dead\.git".*\} could not be read \(external plugin source of 'dead' unreadable: .+\)\. It is not served/,
          },
          { id: 'source-unresolved', severity: 'HIGH', location: `${manifestPath}:${entryLine(text, 'missing')}` },
        ],
      },
      'a vetting finding source-unresolved (HIGH) appears on the report, at the line of the entry',
    );
    t.equal(sources.findings.length, 2);
    t.equal(report.outcome, 'BLOCKED', 'a HIGH finding blocks until waived');

    const again = await api.post('/api/v1/marketplaces/ten/ingest');
    t.equal(again.body.id, snapshot.body.id, 'the same sources failing again compose the same commit: no new snapshot');
    t.equal((await ledger(gw, 'plugin-withheld')).length, 2, 'and no new plugin-withheld entries');

    await waiveAndApprove(t, api, snapshot.body.id);
    const { dir, manifest } = await cloneManifest(t, gw, api, 'ten');
    t.strictSame(
      manifest.plugins.map((p) => p.name),
      served,
      'the served marketplace.json lists only resolved plugins (and the local one)',
    );
    t.equal(manifest.plugins.find((p) => p.name === 'p5')?.source, './.gateway-external/p5');
    t.ok(existsSync(join(dir, '.gateway-external/w8/skills/w8-skill/SKILL.md')), 'resolved plugins are in the tree');
    t.notOk(existsSync(join(dir, '.gateway-external/dead')), 'withheld plugins are not');

    // And the catalog follows: the catalog is composed from the served composite. (Asked for
    // explicitly: the rebuild answers with the revision it served.)
    const rebuilt = await api.post('/api/v1/catalog/rebuild');
    t.equal(rebuilt.status, 200, rebuilt.text);
    t.strictSame(rebuilt.body.constituents, [{ marketplace: 'ten', sha: snapshot.body.sha }]);
    const catalog = await cloneManifest(t, gw, api, 'catalog');
    t.strictSame(
      catalog.manifest.plugins.map((p) => p.name).sort(),
      served,
      'the catalog lists the served plugins, not the withheld ones',
    );
    t.ok(existsSync(join(catalog.dir, 'plugins/ten/p1/skills/p1-skill/SKILL.md')));
  },
);

t.test(
  'gateway.ingest.external-sources require-all: the first unreadable source fails the ingest (502); the limit rejects',
  async (t) => {
    const gw = await startTestGateway(t, {
      ...env,
      GATEWAY_INGEST_EXTERNAL_SOURCES: 'require-all',
      GATEWAY_INGEST_MAX_EXTERNAL_SOURCES: '10',
    });
    const api = devSession(gw, 'root');
    const { upstream } = await tenSources(t);
    await register(t, api, 'strict', upstream.url);
    const failed = await api.post('/api/v1/marketplaces/strict/ingest');
    t.equal(failed.status, 502, failed.text);
    t.match(failed.body, {
      type: /ingest-failed/,
      reason: "external plugin source of 'dead' unreadable",
      rootCause: /./,
      nextStep: /127\.0\.0\.1:1/,
    });
    t.match(
      await marketplaceNamed(api, 'strict'),
      { lastIngestOutcome: 'failed', snapshots: [] },
      'no snapshot; the failure is recorded',
    );
    t.equal((await ledger(gw, 'ingest-failed')).length, 1);
    t.equal((await ledger(gw, 'plugin-withheld')).length, 0);

    // decision 57 under require-all: a source outside the trust boundary is a violation of the manifest.
    const outside = await serveUpstream(t, {
      [manifestPath]: manifestOf('outside', [{ name: 'p', source: { source: 'url', url: 'file:///etc' } }]),
    });
    await register(t, api, 'outside', outside.url);
    const rejected = await api.post('/api/v1/marketplaces/outside/ingest');
    t.equal(rejected.status, 201);
    t.match(rejected.body, { state: 'rejected', violation: /plugin 'p': URL scheme 'file' is not allowed/ });

    // A configurable limit (gateway.ingest.max-external-sources): more is a rejected snapshot.
    const many = await serveUpstream(t, {
      [manifestPath]: manifestOf(
        'many',
        Array.from({ length: 11 }, (_, i) => ({ name: `x${i}`, source: { source: 'github', repo: `acme/x${i}` } })),
      ),
    });
    await register(t, api, 'many', many.url);
    const limited = await api.post('/api/v1/marketplaces/many/ingest');
    t.equal(limited.status, 201, 'nothing is fetched: the snapshot is captured as rejected');
    t.match(limited.body, {
      state: 'rejected',
      violation: '11 external plugin sources; at most 10 are resolved (gateway.ingest.max-external-sources)',
    });
  },
);

t.test(
  'a source outside the trust boundary is withheld, not a rejected snapshot; with every source withheld and no local plugin the manifest alone is captured',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const api = devSession(gw, 'root');
    const text = manifestOf('bounded', [
      { name: 'files', source: { source: 'url', url: 'file:///etc' } },
      { name: 'creds', source: { source: 'url', url: 'http://user:secret@127.0.0.1:1/x.git' } },
    ]);
    const upstream = await serveUpstream(t, { [manifestPath]: text });
    await register(t, api, 'bounded', upstream.url);
    const snapshot = await api.post('/api/v1/marketplaces/bounded/ingest');
    t.equal(snapshot.status, 201, snapshot.text);
    t.match(snapshot.body, {
      state: 'held',
      violation: null,
      unresolved: [
        {
          plugin: 'files',
          source: { source: 'url', url: 'file:///etc' },
          reason: /outside the trust boundary: URL scheme 'file' is not allowed/,
        },
        { plugin: 'creds', reason: /outside the trust boundary: .*credentials|userinfo/i },
      ],
    });
    t.equal(snapshot.body.unresolved[1].source.url, 'http://***@127.0.0.1:1/x.git', 'user information is masked');
    t.notMatch(JSON.stringify(snapshot.body.unresolved), /secret/, 'the password is recorded nowhere');
    const file = await api.get(`/api/v1/snapshots/${snapshot.body.id}/file?path=${encodeURIComponent(manifestPath)}`);
    t.equal(file.status, 200, file.text);
    t.strictSame(
      (JSON.parse(file.body.text) as { plugins: Entry[] }).plugins,
      [],
      'decision: nothing to serve but the manifest, captured all the same (the findings say why)',
    );
    const report = (await api.get(`/api/v1/snapshots/${snapshot.body.id}/vetting`)).body;
    t.strictSame(
      report.uncovered
        .filter((u: { ruleId: string }) => u.ruleId === 'source-unresolved')
        .map((u: { location: string }) => u.location),
      [`${manifestPath}:${entryLine(text, 'files')}`, `${manifestPath}:${entryLine(text, 'creds')}`],
    );
  },
);

t.test('a marketplace with 300 external sources over loopback repositories ingests', async (t) => {
  const gw = await startTestGateway(t, env);
  const api = devSession(gw, 'root');
  const repos = ['r0', 'r1', 'r2', 'r3', 'r4'];
  const names = Array.from({ length: 300 }, (_, i) => `s${i}`);
  const repoOf = (i: number) => repos[i % repos.length]!;
  const sources = await serveSources(
    t,
    Object.fromEntries(
      repos.map((repo, r) => [
        repo,
        Object.assign(
          {},
          ...names.filter((_, i) => i % repos.length === r).map((p) => pluginFiles(p, `plugins/${p}/`)),
        ),
      ]),
    ),
  );
  const text = manifestOf(
    'wide',
    names.map((p, i) => ({
      name: p,
      source: { source: 'git-subdir', url: sources.url(repoOf(i)), path: `plugins/${p}` },
    })),
  );
  const upstream = await serveUpstream(t, { [manifestPath]: text }, 'wide');
  await register(t, api, 'wide', upstream.url);
  const started = performance.now();
  const snapshot = await api.post('/api/v1/marketplaces/wide/ingest');
  t.comment(
    `300 external sources over ${repos.length} repositories: ingest ${Math.round(performance.now() - started)} ms`,
  );
  t.equal(snapshot.status, 201, snapshot.text);
  t.match(snapshot.body, { state: 'held', violation: null, unresolved: [] });
  const file = await api.get(`/api/v1/snapshots/${snapshot.body.id}/file?path=${encodeURIComponent(manifestPath)}`);
  const plugins = (JSON.parse(file.body.text) as { plugins: Entry[] }).plugins;
  t.equal(plugins.length, 300);
  t.ok(
    plugins.every((p) => p.source === `./.gateway-external/${p.name}`),
    'every entry points at its resolved copy',
  );
  const skill = await api.get(
    `/api/v1/snapshots/${snapshot.body.id}/file?path=${encodeURIComponent('.gateway-external/s299/skills/s299-skill/SKILL.md')}`,
  );
  t.match(skill.body.text, /Do the s299 thing/, 'the last source is in the tree');
});
