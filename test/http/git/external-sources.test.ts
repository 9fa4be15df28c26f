import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitClient, serveUpstream } from '../../support/upstream.ts';

t.test(
  'external plugin sources are resolved into a composite commit that names the upstream commit and does not descend from it',
  async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const api = devSession(gw, 'root');
    const tools = await serveUpstream(
      t,
      {
        'README.md': 'tool repository\n',
        'plugins/linter/.claude-plugin/plugin.json': '{"name":"linter"}',
        'plugins/linter/skills/lint/SKILL.md': '---\nname: lint\ndescription: lint things\n---\nLint.\n',
      },
      'tools',
    );
    const whole = await serveUpstream(
      t,
      { '.claude-plugin/plugin.json': '{"name":"formatter"}', 'commands/format.md': 'Format.\n' },
      'formatter',
    );
    const upstream = await serveUpstream(t, {
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'mixed',
        owner: { name: 'Upstream' },
        plugins: [
          { name: 'local', source: './plugins/local' },
          { name: 'linter', source: { source: 'git-subdir', url: tools.url, path: 'plugins/linter' } },
          { name: 'formatter', source: { source: 'url', url: whole.url } },
        ],
      }),
      'plugins/local/.claude-plugin/plugin.json': '{"name":"local"}',
    });
    t.equal((await api.post('/api/v1/marketplaces', { name: 'mixed', url: upstream.url })).status, 201);
    const snapshot = await api.post('/api/v1/marketplaces/mixed/ingest');
    t.equal(snapshot.status, 201, snapshot.text);
    t.equal(snapshot.body.state, 'held', snapshot.body.violation ?? '');
    const upstreamTip = (await git(['-C', upstream.bare, 'rev-parse', 'refs/heads/main'])).toString().trim();
    t.equal(snapshot.body.upstreamSha, upstreamTip, 'upstreamSha is the commit ingested from upstream');
    t.not(snapshot.body.sha, snapshot.body.upstreamSha, 'sha is the composite');
    const repeat = await api.post('/api/v1/marketplaces/mixed/ingest');
    t.equal(
      repeat.body.id,
      snapshot.body.id,
      'the composite is deterministic: a re-ingest captures no second snapshot',
    );

    t.equal((await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`)).status, 200);
    const client = gitClient(t, (await api.post('/api/v1/tokens', { name: 'c' })).body.token);
    const clone = await client.clone(`${gw.url}/git/mixed`);
    t.ok(clone.ok, clone.stderr);
    t.notOk(
      (await client.run(['rev-parse', '--verify', '--quiet', 'HEAD^'], clone.dir)).ok,
      'the first served composite has no parent',
    );
    t.notOk(
      (await client.run(['cat-file', '-e', upstreamTip], clone.dir)).ok,
      'the upstream commit is not in the clone',
    );
    t.equal(
      (await client.run(['log', '-1', '--format=%(trailers:key=Upstream-Commit,valueonly)'], clone.dir)).stdout,
      upstreamTip,
      'the composite names the upstream commit in its Upstream-Commit trailer',
    );
    t.ok(
      existsSync(join(clone.dir, '.gateway-external/linter/skills/lint/SKILL.md')),
      'the git-subdir directory is in the served tree',
    );
    t.notOk(existsSync(join(clone.dir, '.gateway-external/linter/README.md')), 'only that directory');
    t.ok(
      existsSync(join(clone.dir, '.gateway-external/formatter/commands/format.md')),
      'the whole url repository is in the served tree',
    );
    const manifest = JSON.parse(readFileSync(join(clone.dir, '.claude-plugin/marketplace.json'), 'utf8')) as {
      plugins: Array<{ name: string; source: unknown }>;
    };
    t.strictSame(
      manifest.plugins.map((p) => [p.name, p.source]),
      [
        ['local', './plugins/local'],
        ['linter', './.gateway-external/linter'],
        ['formatter', './.gateway-external/formatter'],
      ],
      'the manifest points at the resolved copies',
    );
  },
);

t.test(
  'an external source outside the trust boundary or unreachable withholds its plugin, not the snapshot',
  async (t) => {
    // The strict behaviour (rejected snapshot, 502) is gateway.ingest.external-sources require-all:
    // test/http/git/per-plugin-outcomes.test.ts.
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const api = devSession(gw, 'root');
    const upstream = await serveUpstream(t, {
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'x',
        owner: { name: 'u' },
        plugins: [{ name: 'p', source: { source: 'url', url: 'file:///etc' } }],
      }),
    });
    await api.post('/api/v1/marketplaces', { name: 'x', url: upstream.url });
    const outside = await api.post('/api/v1/marketplaces/x/ingest');
    t.equal(outside.status, 201);
    t.match(outside.body, {
      state: 'held',
      violation: null,
      unresolved: [{ plugin: 'p', reason: /URL scheme 'file' is not allowed/ }],
    });
    await upstream.commit({
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'x',
        owner: { name: 'u' },
        plugins: [{ name: 'p', source: { source: 'url', url: 'http://127.0.0.1:1/nothing.git' } }],
      }),
    });
    const unreachable = await api.post('/api/v1/marketplaces/x/ingest');
    t.equal(unreachable.status, 201, unreachable.text);
    t.match(unreachable.body, {
      state: 'held',
      unresolved: [
        {
          plugin: 'p',
          reason: /^external plugin source of 'p' unreadable: ./,
          nextStep: /127\.0\.0\.1:1/,
        },
      ],
    });
  },
);
