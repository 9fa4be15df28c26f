import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Revocations come from re-vetting (a later capability); here the event is appended as re-vetting
// will append it, and publication, the facade and the holdings check must follow.
t.test('a revoked snapshot leaves the wire and cannot be fetched by id (spec, Facade rule 5)', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const api = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const registered = (await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;
  const v1 = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  await api.post(`/api/v1/snapshots/${v1.id}/approve`);
  await upstream.commit({ 'plugins/alpha/NEW.md': 'only in v2\n' });
  const v2 = (await api.post('/api/v1/marketplaces/acme/ingest')).body;
  await api.post(`/api/v1/snapshots/${v2.id}/approve`);

  const revoke = async (snapshot: { id: number; sha: string }) => {
    await gw.core.store.append(
      `marketplace-${registered.id}`,
      [
        {
          type: 'snapshot-revoked',
          data: {
            snapshotId: snapshot.id,
            marketplaceId: registered.id,
            marketplace: 'acme',
            sha: snapshot.sha,
            reason: 'secret found',
            administrative: false,
            revokedAt: new Date().toISOString(),
            revokedBy: 'revet-policy',
          },
          metadata: {
            principal: 'revet-policy',
            actorType: 'system',
            correlationId: 'revet',
            at: new Date().toISOString(),
          },
        },
      ],
      'any',
    );
    await gw.settled();
  };

  const client = gitClient(t, (await api.post('/api/v1/tokens', { name: 'c' })).body.token);
  const url = `${gw.url}/git/acme`;
  const clone = await client.clone(url);
  t.ok(clone.ok);
  await revoke(v1);
  const refs = (await client.run(['ls-remote', url])).stdout
    .split('\n')
    .map((line) => line.split('\t')[1])
    .sort();
  t.strictSame(
    refs,
    ['HEAD', 'refs/heads/main', `refs/snapshots/${v2.sha}`],
    'revoking a superseded snapshot removes only its pinned ref',
  );
  const empty = (await client.clone(url)).dir;
  await client.run(['init', '--quiet', `${empty}-fresh`]);
  const fetched = await client.run(['-c', 'protocol.version=2', 'fetch', url, v1.sha], `${empty}-fresh`);
  t.notOk(fetched.ok, 'the real client asking for the revoked sha is refused');
  t.match(fetched.stderr, /not our ref/);
  const published = gw.core.gitStore.publishedPath(registered.id);
  t.ok(
    await git(['-C', published, 'cat-file', '-e', `${v1.sha}^{commit}`]).then(
      () => true,
      () => false,
    ),
    'v1 is still an ancestor of the served tip, so its objects stay (they are reachable history)',
  );

  await revoke(v2);
  t.notOk((await client.clone(url)).ok, 'revoking the tip removes refs/heads/main: nothing is served');
  t.notOk(
    await git(['-C', published, 'cat-file', '-e', `${v2.sha}^{commit}`]).then(
      () => true,
      () => false,
    ),
    'objects nothing served reaches are pruned, so the revoked commit cannot be fetched by id',
  );
  const listed = (await api.get('/api/v1/marketplaces')).body[0];
  t.equal(listed.servedSha, null, 'servedSha is read from the published repository');
  t.match(
    listed.snapshots.find((s: { id: number }) => s.id === v2.id),
    { state: 'revoked', violation: 'secret found', revokedBy: 'revet-policy' },
  );

  const holdings = await fetch(`${gw.url}/status/v1/snapshots`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`x:${(await api.post('/api/v1/tokens', { name: 'h' })).body.token}`).toString('base64')}`,
    },
    body: JSON.stringify({ holdings: [{ marketplace: 'acme', sha: v2.sha }] }),
  });
  t.match(await holdings.json(), { results: [{ state: 'revoked', revokedAt: /^\d{4}-/ }] });

  const reapproved = await api.post(`/api/v1/snapshots/${v2.id}/approve`);
  t.equal(reapproved.status, 200, 'held or revoked → approved');
  t.ok((await client.clone(url)).ok, 'served again');
  const again = await fetch(`${gw.url}/status/v1/snapshots`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`x:${(await api.post('/api/v1/tokens', { name: 'h2' })).body.token}`).toString('base64')}`,
    },
    body: JSON.stringify({ holdings: [{ marketplace: 'acme', sha: v2.sha }] }),
  });
  t.match(await again.json(), { results: [{ state: 'approved', approvedOverReversedRevocation: true }] });
});
