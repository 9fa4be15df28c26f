import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

t.test('supersession, audit reads, holdings check, removal and re-registration', async (t) => {
  const gw = await startTestGateway(t, {
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: 'root',
    GATEWAY_AUDIT_EXPORT_LAG: '0s',
  });
  const api = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  t.equal((await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);

  const first = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  const again = await api.post('/api/v1/marketplaces/acme/ingest');
  t.equal(again.body.id, first.id, 'spec: ingesting a captured commit creates no second snapshot');
  t.equal((await api.post(`/api/v1/snapshots/${first.id}/approve`)).status, 200);
  await upstream.commit({ 'plugins/alpha/README.md': 'v2\n' });
  const second = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  t.not(second.id, first.id);
  t.equal((await api.post(`/api/v1/snapshots/${second.id}/approve`)).status, 200);
  await upstream.commit({ 'plugins/alpha/README.md': 'v3\n' });
  const held = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal(held.state, 'held');

  const token = (await api.post('/api/v1/tokens', { name: 'client' })).body.token as string;
  const client = gitClient(t, token);
  const url = `${gw.url}/git/acme`;
  const refs = (await client.run(['ls-remote', url])).stdout.split('\n').map((line) => line.split('\t'));
  t.strictSame(
    Object.fromEntries(refs.map(([sha, ref]) => [ref, sha])),
    {
      HEAD: second.sha,
      'refs/heads/main': second.sha,
      [`refs/snapshots/${first.sha}`]: first.sha,
      [`refs/snapshots/${second.sha}`]: second.sha,
    },
    'main at the newest approval; the superseded snapshot stays pinned; the held one is not on the wire',
  );
  const fetchHeld = await client.run(['fetch', url, held.sha], (await client.clone(url)).dir);
  t.notOk(fetchHeld.ok, 'a commit that is not advertised cannot be fetched by id');

  // Holdings check (spec, Facade, revocation check).
  const check = (holdings: unknown, auth = token) =>
    fetch(`${gw.url}/status/v1/snapshots`, {
      method: 'POST',
      body: JSON.stringify({ holdings }),
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`x:${auth}`).toString('base64')}`,
      },
    });
  const answers = (await (
    await check([
      { marketplace: 'acme', sha: first.sha },
      { marketplace: 'acme', sha: held.sha },
      { marketplace: 'acme', sha: 'f'.repeat(40) },
      { marketplace: 'nowhere', sha: first.sha },
      { marketplace: 'acme', sha: second.sha },
    ])
  ).json()) as { results: Array<Record<string, unknown>> };
  t.strictSame(
    answers.results.map((r) => [r.sha, r.state]),
    [
      [first.sha, 'approved'],
      [held.sha, 'unknown'],
      ['f'.repeat(40), 'unknown'],
      [first.sha, 'unknown'],
      [second.sha, 'approved'],
    ],
    'in request order; approved ignores supersession; never approved, unknown commits and unknown marketplaces read unknown',
  );
  t.match(answers.results[0], { marketplace: 'acme', revokedAt: null, approvedOverReversedRevocation: false });
  t.equal(
    (await check(Array.from({ length: 257 }, () => ({ marketplace: 'acme', sha: first.sha })))).status,
    400,
    'more than 256 pairs',
  );
  t.equal((await check([{ marketplace: 'acme', sha: first.sha.slice(0, 12) }])).status, 400, 'an abbreviated sha');
  t.equal((await check([{ marketplace: 'Acme!', sha: first.sha }])).status, 400, 'a malformed name');
  const unauthenticated = await fetch(`${gw.url}/status/v1/snapshots`, {
    method: 'POST',
    body: '{"holdings":[]}',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(unauthenticated.status, 401);
  const scoped = (await api.post('/api/v1/tokens', { name: 'scoped', scopes: ['catalog'] })).body.token as string;
  t.match(
    await (await check([{ marketplace: 'acme', sha: first.sha }], scoped)).json(),
    { results: [{ state: 'unknown' }] },
    'out of scope reads unknown',
  );

  // Ledger reads.
  await gw.settled();
  const page = await api.get('/api/v1/audit?limit=3');
  t.equal(page.status, 200);
  t.equal(page.body.entries.length, 3);
  t.ok(page.body.entries[0].id > page.body.entries[2].id, 'newest first');
  t.equal(page.body.totalIsEstimate, false);
  t.ok(page.body.total > 10);
  const next = await api.get(`/api/v1/audit?limit=3&before=${page.body.nextBefore}`);
  t.ok(
    next.body.entries.every((e: { id: number }) => e.id < page.body.nextBefore),
    'paged by ledger sequence',
  );
  const all = await api.get('/api/v1/audit?limit=10000');
  t.notOk('nextBefore' in all.body, 'nextBefore is absent once the oldest entry is reached');
  t.equal(all.body.entries.length, all.body.total);
  const events = all.body.entries.map((e: { event: string }) => e.event);
  for (const event of [
    'marketplace-registered',
    'snapshot-captured',
    'ingest-succeeded',
    'snapshot-approved',
    'token-created',
    'info-refs',
    'upload-pack',
  ]) {
    t.ok(events.includes(event), `the ledger records ${event}`);
  }
  const filtered = await api.get('/api/v1/audit?marketplace=acme&limit=10000');
  t.ok(
    filtered.body.entries.length > 0 &&
      filtered.body.entries.every((e: { marketplace: string }) => e.marketplace === 'acme'),
  );
  t.equal(filtered.body.total, all.body.total, 'total counts the whole ledger regardless of the filter');
  t.equal((await devSession(gw, 'nobody').get('/api/v1/audit')).status, 403, 'auditor or admin only');
  const exported = await api.get('/api/v1/audit/export?after=2&limit=4');
  t.match(exported.headers.get('content-type'), /application\/x-ndjson/);
  const lines = exported.text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  t.strictSame(
    lines.map((l) => l.id),
    [3, 4, 5, 6],
    'ledger order after the cursor',
  );
  t.equal(exported.headers.get('x-gateway-audit-cursor'), '6');
  // The export's fields (docs/audit.md, Entries), plus the two additive fields of the tamper-evident chain
  // (docs/audit.md).
  t.strictSame(Object.keys(lines[0]).sort(), [
    'actor_type',
    'detail',
    'event',
    'hash',
    'id',
    'marketplace',
    'marketplace_id',
    'prev_hash',
    'principal',
    'ref',
    'sha',
    'source',
    'token_id',
    'ts',
  ]);

  // Removal (spec, Marketplaces: Removal).
  t.equal((await api.delete('/api/v1/marketplaces/acme', { reason: ' ' })).status, 422, 'a reason is required');
  const removed = await api.delete('/api/v1/marketplaces/acme', { reason: 'retired upstream' });
  t.equal(removed.status, 200, removed.text);
  t.match(removed.body, {
    name: 'acme',
    removedBy: 'root',
    withdrawnSnapshotIds: [first.id, second.id].sort((a, b) => a - b),
    pushScopeRemovedFromTokenIds: [],
  });
  t.notOk((await client.clone(url)).ok, 'a removed marketplace is not served');
  t.equal((await api.post('/api/v1/marketplaces/acme/ingest')).status, 404, 'unreachable on /marketplaces/{name}/...');
  t.strictSame((await api.get('/api/v1/marketplaces')).body, [], 'unlisted');
  const published = gw.core.gitStore.publishedPath(removed.body.id);
  t.notOk(
    await git(['-C', published, 'cat-file', '-e', `${first.sha}^{commit}`]).then(
      () => true,
      () => false,
    ),
    'withdrawn objects are pruned',
  );
  const revoked = (await (await check([{ marketplace: 'acme', sha: second.sha }])).json()) as {
    results: Array<Record<string, unknown>>;
  };
  t.match(revoked.results[0], { state: 'revoked', revokedAt: /^\d{4}-/ }, 'spec: the status check answers revoked');
  await gw.settled();
  const removal = (await api.get('/api/v1/audit?marketplace=acme&limit=20')).body.entries;
  t.match(
    removal.find((e: { event: string }) => e.event === 'marketplace-removed'),
    { detail: 'withdrew 2 approved snapshots; retired upstream', principal: 'root' },
  );
  t.equal(removal.filter((e: { event: string }) => e.event === 'snapshot-revoked').length, 2);
  t.equal(removal.filter((e: { event: string }) => e.event === 'snapshot-unpublished').length, 2);

  const again2 = await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
  t.equal(again2.status, 201, 'a removed name is free');
  t.not(again2.body.id, removed.body.id, 'with a new id');
  // The upstream goes back to a commit that was withdrawn with the old marketplace.
  await git(['-C', upstream.bare, 'update-ref', 'refs/heads/main', second.sha]);
  const recaptured = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  t.equal(recaptured.sha, second.sha);
  t.equal(recaptured.state, 'held', 'no inherited approval');
  const refused = await api.post(`/api/v1/snapshots/${recaptured.id}/approve`);
  t.equal(refused.status, 409, 'spec: a commit withdrawn administratively is refused');
  t.match(refused.body, { type: /snapshot-withdrawn$/ });
});

t.test('the export withholds entries younger than gateway.audit-export.lag (default 5s)', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const api = devSession(gw, 'root');
  await api.post('/api/v1/tokens', { name: 'fresh' });
  await gw.settled();
  t.ok((await api.get('/api/v1/audit')).body.entries.length >= 1, 'the entry is on the ledger');
  const exported = await api.get('/api/v1/audit/export?after=0');
  t.equal(exported.text, '', 'but too young to export');
  t.equal(exported.headers.get('x-gateway-audit-cursor'), '0', 'the cursor stays where it was');
});
