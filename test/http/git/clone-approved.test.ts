import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { z } from 'zod';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

const ledger = (gw: TestGateway, event: string) =>
  gw.core.pool.any(
    sql.type(
      z.object({
        event: z.string(),
        ref: z.string().nullable(),
        sha: z.string().nullable(),
        source: z.string(),
        principal: z.string(),
        token_id: z.bigint().nullable(),
        credential_kind: z.string().nullable(),
        marketplace: z.string(),
        actor_type: z.string(),
      }),
    )`select event, ref, sha, source, principal, token_id, credential_kind, marketplace, actor_type from ledger_entries where event = ${event} order by id`,
  );

t.test('register, ingest, approve, then clone exactly the approved commit with the real git client', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const api = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']));

  const registered = await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
  t.equal(registered.status, 201, JSON.stringify(registered.body));
  t.match(registered.body, {
    name: 'acme',
    url: upstream.url,
    servedSha: null,
    lastIngestAt: null,
    syncMode: 'on-demand',
    warnings: [],
    snapshots: [],
  });

  const snapshot = await api.post('/api/v1/marketplaces/acme/ingest');
  t.equal(snapshot.status, 201, JSON.stringify(snapshot.body));
  t.match(snapshot.body, { state: 'held', ingestedBy: 'root', violation: null });
  const sha: string = snapshot.body.sha;
  t.match(sha, /^[0-9a-f]{40}$/);

  const token = (await api.post('/api/v1/tokens', { name: 'clone' })).body.token as string;
  const client = gitClient(t, token);
  const url = `${gw.url}/git/acme`;
  const before = await client.clone(url);
  t.notOk(before.ok, 'a marketplace never approved is not served');
  t.match(before.stderr, /not found/);

  const approved = await api.post(`/api/v1/snapshots/${snapshot.body.id}/approve`);
  t.equal(approved.status, 200, JSON.stringify(approved.body));
  t.match(approved.body, { state: 'approved', decidedBy: 'root' });
  const listed = await api.get('/api/v1/marketplaces');
  t.match(listed.body, [
    { name: 'acme', servedSha: sha, lastIngestOutcome: 'succeeded', description: 'acme test marketplace' },
  ]);

  for (const protocol of [2, 0] as const) {
    const clone = await client.clone(`${url}.git`, { protocol });
    t.ok(clone.ok, `protocol v${protocol} clone: ${clone.stderr}`);
    t.equal(
      (await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout,
      sha,
      `v${protocol}: HEAD is the approved commit`,
    );
    t.ok(existsSync(join(clone.dir, 'plugins/alpha/skills/alpha-skill/SKILL.md')));
    t.match(readFileSync(join(clone.dir, '.claude-plugin/marketplace.json'), 'utf8'), /"acme"/);
  }
  const remote = await client.run(['ls-remote', url]);
  t.strictSame(
    remote.stdout
      .split('\n')
      .map((line) => line.split('\t')[1])
      .sort(),
    ['HEAD', 'refs/heads/main', `refs/snapshots/${sha}`],
    'spec, Facade rule 2: HEAD, refs/heads/main and refs/snapshots/<sha>, nothing else',
  );

  await gw.settled();
  const infoRefs = await ledger(gw, 'info-refs');
  t.ok(infoRefs.length >= 3, 'an info-refs entry per advertisement');
  t.match(infoRefs[0], {
    ref: 'refs/heads/main',
    sha,
    source: '127.0.0.1',
    principal: 'root',
    credential_kind: 'pat',
    marketplace: 'acme',
    actor_type: 'human',
  });
  t.ok(infoRefs.every((e) => e.token_id !== null));
  const uploads = await ledger(gw, 'upload-pack');
  t.equal(
    uploads.length,
    2,
    `one upload-pack entry per clone (one want each): ${JSON.stringify(uploads, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}`,
  );
  t.ok(uploads.every((e) => e.ref === 'refs/heads/main' && e.sha === sha && e.credential_kind === 'pat'));

  const push = await client.run(['push', url, 'HEAD:refs/heads/main'], (await client.clone(url)).dir);
  t.notOk(push.ok, 'spec, Facade rule 4: receive-pack is disabled');
  t.match(push.stderr, /403|not enabled/i);

  const anonymous = await gitClient(t, null).clone(url);
  t.notOk(anonymous.ok);
  t.match(anonymous.stderr, /could not read Username|Authentication failed|401/);
  const wrong = await gitClient(t, `gw_${'x'.repeat(43)}`).clone(url);
  t.notOk(wrong.ok);
  t.match(
    wrong.stderr,
    /Authentication failed|could not read Username/,
    'the gateway answered 401: git asks for other credentials',
  );
});
