import t from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace, harmlessHook } from '../../support/planted.ts';
import { gitClient, serveUpstream } from '../../support/upstream.ts';

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_VETTING_LICENSE_ALLOW: 'MIT,Apache-2.0',
};
const mitText =
  'MIT License\n\nCopyright (c) 2026 Acme\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software and associated documentation files (the "Software"), to deal\nin the Software without restriction, including without limitation the rights\nto use, copy, modify, merge, publish, distribute, sublicense, and/or sell\ncopies of the Software, and to permit persons to whom the Software is\nfurnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission notice shall be included in all\ncopies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\nIMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,\nFITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE\nAUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER\nLIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,\nOUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE\nSOFTWARE.\n';

t.test('content inventory, content diff against the approved baseline, and the license report', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(
    t,
    cleanMarketplace({
      ...harmlessHook,
      LICENSE: mitText,
      'plugins/tidy/skills/lint/SKILL.md': '---\nname: lint\ndescription: lints\n---\nLint.\n',
      'plugins/tidy/skills/old/SKILL.md': '---\nname: old\ndescription: old\n---\nOld.\n',
      'plugins/tidy/.mcp.json': JSON.stringify({ mcpServers: { local: { command: 'node', args: ['server.js'] } } }),
    }),
  );
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const v1 = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;

  const content = (await root.get(`/api/v1/snapshots/${v1.id}/content`)).body;
  t.match(content, { snapshotId: v1.id, sha: v1.sha, state: 'held' });
  t.equal(content.plugins.length, 1);
  const plugin = content.plugins[0];
  t.match(plugin, { name: 'tidy', description: 'tidies', source: './plugins/tidy' });
  t.strictSame(plugin.skills.map((s: { name: string }) => s.name).sort(), ['format', 'lint', 'old']);
  t.match(plugin.commands, [{ name: 'tidy', path: 'plugins/tidy/commands/tidy.md' }]);
  t.match(plugin.agents, [{ name: 'reviewer', path: 'plugins/tidy/agents/reviewer.md' }]);
  t.match(plugin.hooks, [
    {
      event: 'PostToolUse',
      matcher: 'Write',
      type: 'command',
      runs: 'echo formatted',
      location: /^plugins\/tidy\/hooks\/hooks\.json:\d+$/,
      declaredBy: 'plugin',
    },
  ]);
  t.match(plugin.mcpServers, [{ name: 'local', path: 'plugins/tidy/.mcp.json' }]);
  t.strictSame(plugin.lspServers, [], 'every list is present');
  for (const read of [
    'content',
    'content-diff',
    'capabilities',
    'licenses',
    'files',
    'file?path=LICENSE',
    'diff',
    'fetchers',
    'provenance',
    'release-age',
    'four-eyes',
    'name-collisions',
    'tree',
    'vetting',
  ]) {
    t.equal((await root.get(`/api/v1/snapshots/424242/${read}`)).status, 404, `${read}: 404 for an unknown snapshot`);
  }

  const licenses = (await root.get(`/api/v1/snapshots/${v1.id}/licenses`)).body;
  t.match(licenses, { snapshotId: v1.id, sha: v1.sha, allowed: ['MIT', 'Apache-2.0'], banned: [] });
  t.match(
    licenses.licenses.find((l: { source: string }) => l.source === 'file'),
    { spdxId: 'MIT', location: 'LICENSE:1', declared: null, evaluation: 'OK' },
  );
  t.match(
    licenses.licenses.find((l: { source: string }) => l.source === 'manifest'),
    { spdxId: 'MIT', declared: 'MIT', evaluation: 'OK' },
  );

  const first = (await root.get(`/api/v1/snapshots/${v1.id}/content-diff`)).body;
  t.match(first, { baselineSnapshotId: null, baselineSha: null, plugins: [{ name: 'tidy', status: 'added' }] });
  t.ok(
    first.plugins[0].skills.every((s: { status: string }) => s.status === 'added'),
    'no baseline: everything is added',
  );
  t.equal(first.summary.added, 3);

  t.equal((await root.post(`/api/v1/snapshots/${v1.id}/approve`)).status, 200);
  // v2: format changed, lint moved to a new plugin, old removed, fresh added, a second plugin appears.
  await upstream.commit({
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      owner: { name: 'Acme' },
      plugins: [
        { name: 'tidy', source: './plugins/tidy', description: 'tidies', license: 'MIT' },
        { name: 'extra', source: './plugins/extra', description: 'more', license: 'MIT' },
      ],
    }),
    'plugins/tidy/skills/format/SKILL.md':
      '---\nname: format\ndescription: formats code\n---\nRun the formatter, twice.\n',
    'plugins/tidy/skills/fresh/SKILL.md': '---\nname: fresh\ndescription: new\n---\nNew.\n',
    'plugins/extra/.claude-plugin/plugin.json': JSON.stringify({ name: 'extra', license: 'MIT' }),
    'plugins/extra/skills/lint/SKILL.md': '---\nname: lint\ndescription: lints\n---\nLint.\n',
  });
  await upstream.commit({ 'plugins/tidy/skills/lint/SKILL.md': null, 'plugins/tidy/skills/old/SKILL.md': null });
  const v2 = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const diff = (await root.get(`/api/v1/snapshots/${v2.id}/content-diff`)).body;
  t.match(diff, { snapshotId: v2.id, sha: v2.sha, state: 'held', baselineSnapshotId: v1.id, baselineSha: v1.sha });
  const byName = Object.fromEntries(diff.plugins.map((p: { name: string }) => [p.name, p]));
  t.equal(byName.tidy.status, 'changed');
  t.equal(byName.extra.status, 'added');
  const skill = (p: string, name: string) => byName[p].skills.find((s: { name: string }) => s.name === name);
  t.match(skill('tidy', 'format'), { status: 'changed', movedFromPlugin: null });
  t.match(skill('tidy', 'fresh'), { status: 'added' });
  t.match(skill('tidy', 'old'), { status: 'removed' });
  t.match(
    skill('extra', 'lint'),
    { status: 'moved', movedFromPlugin: 'tidy', path: 'plugins/extra/skills/lint/SKILL.md' },
    'a moved skill is reported once, on its new plugin',
  );
  t.notOk(skill('tidy', 'lint'), 'and not as removed from the old one');
  t.strictSame(diff.summary, { added: 1, removed: 1, changed: 1, moved: 1, unchanged: 0 });
  t.notOk(JSON.stringify(diff).includes('twice'), 'no file text is returned');
});

t.test('previews, fetchers and the other snapshot reports', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const many: Record<string, string> = {};
  for (let i = 0; i < 2005; i += 1) many[`plugins/tidy/data/f${String(i).padStart(4, '0')}.txt`] = `line ${i}\n`;
  const upstream = await serveUpstream(
    t,
    cleanMarketplace({
      ...many,
      'plugins/tidy/big.txt': 'x'.repeat(200 * 1024),
      'plugins/tidy/logo.bin': '\u0000\u0001binary',
    }),
  );
  await root.post('/api/v1/marketplaces', { name: 'tidy', url: upstream.url });
  const v1 = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const outsider = devSession(gw, 'mallory');
  for (const path of [
    `/api/v1/snapshots/${v1.id}/files`,
    `/api/v1/snapshots/${v1.id}/file?path=LICENSE`,
    `/api/v1/snapshots/${v1.id}/diff`,
    `/api/v1/snapshots/${v1.id}/fetchers`,
  ]) {
    t.equal((await outsider.get(path)).status, 403, `${path} needs approver or admin standing`);
  }

  const files = (await root.get(`/api/v1/snapshots/${v1.id}/files`)).body;
  t.match(files, { snapshotId: v1.id, sha: v1.sha, truncated: true });
  t.equal(files.entries.length, 2000, 'capped at 2000 entries');
  t.match(files.entries[0], { path: '.claude-plugin/marketplace.json', size: Number });

  const text = (await root.get(`/api/v1/snapshots/${v1.id}/file?path=plugins/tidy/commands/tidy.md`)).body;
  t.strictSame(text, {
    snapshotId: v1.id,
    path: 'plugins/tidy/commands/tidy.md',
    size: 49,
    binary: false,
    truncated: false,
    text: '---\ndescription: tidy up\n---\nTidy the workspace.\n',
  });
  const big = (await root.get(`/api/v1/snapshots/${v1.id}/file?path=plugins/tidy/big.txt`)).body;
  t.match(big, { size: 200 * 1024, truncated: true, binary: false });
  t.equal(big.text.length, 128 * 1024, 'text cut at 128 KiB, full size reported');
  const binary = (await root.get(`/api/v1/snapshots/${v1.id}/file?path=plugins/tidy/logo.bin`)).body;
  t.match(binary, { binary: true, size: Number });
  t.notOk('text' in binary, 'a binary file has no text');
  for (const path of [
    'nope.txt',
    '../etc/passwd',
    'plugins/tidy/../../LICENSE',
    'plugins/tidy',
    '/plugins/tidy/commands/tidy.md',
  ]) {
    t.equal(
      (await root.get(`/api/v1/snapshots/${v1.id}/file?path=${encodeURIComponent(path)}`)).status,
      404,
      `${path} is not an entry of the tree`,
    );
  }

  const firstDiff = (await root.get(`/api/v1/snapshots/${v1.id}/diff`)).body;
  t.match(firstDiff, { snapshotId: v1.id, sha: v1.sha, baselineSha: null, truncated: true });
  t.equal(firstDiff.entries.length, 500, 'capped at 500 entries');
  t.ok(
    firstDiff.entries.every((e: { type: string }) => e.type === 'added'),
    'nothing served: everything is added',
  );

  t.equal((await root.post(`/api/v1/snapshots/${v1.id}/approve`)).status, 200);
  await upstream.commit({
    'plugins/tidy/commands/tidy.md': '---\ndescription: tidy up\n---\nTidy the whole workspace.\n',
    'plugins/tidy/big.txt': null,
    'plugins/tidy/new.md': 'new\n',
  });
  const v2 = (await root.post('/api/v1/marketplaces/tidy/ingest')).body;
  const diff = (await root.get(`/api/v1/snapshots/${v2.id}/diff`)).body;
  t.match(diff, { baselineSha: v1.sha, truncated: false });
  t.strictSame(
    diff.entries.map((e: { path: string; type: string }) => [e.path, e.type]),
    [
      ['plugins/tidy/big.txt', 'removed'],
      ['plugins/tidy/commands/tidy.md', 'modified'],
      ['plugins/tidy/new.md', 'added'],
    ],
  );
  t.match(diff.entries[1].diff, /-Tidy the workspace\.\n\+Tidy the whole workspace\./);
  t.match(diff.entries[0], { binary: false, truncated: true }, 'a removed 200 KiB file: its diff is cut at 128 KiB');

  const token = (await root.post('/api/v1/tokens', { name: 'c' })).body.token;
  t.ok((await gitClient(t, token).clone(`${gw.url}/git/tidy`)).ok);
  const fetchers = (await root.get(`/api/v1/snapshots/${v1.id}/fetchers`)).body;
  t.match(fetchers, {
    snapshotId: v1.id,
    sha: v1.sha,
    fetchers: [{ principal: 'root', fetches: 1, lastFetch: /^\d{4}-/ }],
  });

  t.match((await root.get(`/api/v1/snapshots/${v1.id}/provenance`)).body, {
    snapshotId: v1.id,
    marketplace: 'tidy',
    origin: 'upstream',
    url: upstream.url,
    sha: v1.sha,
    upstreamSha: v1.sha,
    composite: false,
    ingestedBy: 'root',
    committedAt: /^\d{4}-/,
    state: 'approved',
    decidedBy: 'root',
  });
  t.match((await root.get(`/api/v1/snapshots/${v2.id}/release-age`)).body, {
    snapshotId: v2.id,
    minimumReleaseAgeMs: 0,
    elapsed: true,
    ageMs: Number,
  });
  t.match((await root.get(`/api/v1/snapshots/${v1.id}/four-eyes`)).body, {
    ingestedBy: 'root',
    approvedBy: 'root',
    satisfied: false,
  });
  t.match((await root.get(`/api/v1/snapshots/${v2.id}/four-eyes`)).body, { approvedBy: null, satisfied: null });
  const tree = (await root.get(`/api/v1/snapshots/${v1.id}/tree`)).body;
  t.match(
    tree.entries.find((e: { path: string }) => e.path === 'plugins/tidy'),
    { type: 'tree', mode: '040000', oid: /^[0-9a-f]{40}$/, size: null },
  );

  // name-collisions: another served marketplace claiming 'tidy'.
  const other = await serveUpstream(t, cleanMarketplace(), 'other');
  await root.post('/api/v1/marketplaces', { name: 'other', url: other.url });
  const o1 = (await root.post('/api/v1/marketplaces/other/ingest')).body;
  t.strictSame((await root.get(`/api/v1/snapshots/${o1.id}/name-collisions`)).body, {
    snapshotId: o1.id,
    marketplace: 'other',
    collisions: [{ name: 'tidy', marketplaces: ['other', 'tidy'] }],
  });
  t.strictSame(
    (await root.get(`/api/v1/snapshots/${v2.id}/name-collisions`)).body.collisions,
    [],
    'other is not served yet',
  );
});
