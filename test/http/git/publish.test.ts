import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import t, { type Test } from 'tap';
import {
  assertNothingChanged,
  day,
  eventually,
  expectJson,
  inMs,
  ledger,
  session,
  tokenRow,
  type Client,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// A publisher pushes to /publish/{name}; Registration rules (pushPolicy append-only refuses
// non-fast-forward pushes, allow-rewrite permits them and records both tips on the ledger); Snapshot
// state (ingest by push → held, ingestedBy the principal); Tokens rules 2 and 3 (pushScopes; out of
// scope answers as nonexistent); "Re-ingest: hosted marketplaces can be re-ingested"; decisions 80 to 83.

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const zero = '0'.repeat(40);

/** One pkt-line, written independently of the code under test. */
const pkt = (text: string) =>
  Buffer.concat([Buffer.from((Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')), Buffer.from(text)]);
const flush = Buffer.from('0000');
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;

type Snapshot = { id: number; sha: string; state: string; ingestedBy: string | null };
type Marketplace = {
  id: number;
  name: string;
  servedSha: string | null;
  lastIngestOutcome: string | null;
  snapshots: Snapshot[];
};
type Answer = { status: number; headers: Headers; body: Buffer };

async function send(
  gw: TestGateway,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  const response = await gw.fetch(path, {
    method: init.method ?? 'GET',
    headers: init.headers ?? {},
    ...(init.body ? { body: init.body } : {}),
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}
const receiveRefs = (gw: TestGateway, repo: string, headers: Record<string, string> = {}) =>
  send(gw, `/publish/${repo}/info/refs?service=git-receive-pack`, { headers });
const receivePack = (gw: TestGateway, repo: string, body: Buffer, headers: Record<string, string> = {}) =>
  send(gw, `/publish/${repo}/git-receive-pack`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-git-receive-pack-request',
      accept: 'application/x-git-receive-pack-result',
      ...headers,
    },
  });

async function marketplace(t: Test, api: Client, name: string): Promise<Marketplace> {
  const all = await expectJson<Marketplace[]>(t, await api.get('/api/v1/marketplaces'), 200);
  const found = all.find((m) => m.name === name);
  if (!found) throw new Error(`${name} is not listed`);
  return found;
}

/** The refs of a marketplace's quarantine repository, as `<sha> <ref>` lines ('' before the first push). */
function quarantineRefs(gw: TestGateway, marketplaceId: number): string {
  const repo = gw.deps.gitStore.quarantinePath(marketplaceId);
  if (!existsSync(join(repo, 'HEAD'))) return '';
  return execFileSync('git', ['-C', repo, 'for-each-ref', '--format=%(objectname) %(refname)'], {
    encoding: 'utf8',
  }).trim();
}

type Publisher = Readonly<{ id: number; token: string; client: ReturnType<typeof gitClient>; work: string }>;

/**
 * A personal access token of `user` with the given push scopes, already used once (so that its
 * lastUsedAt write is behind us: a refusal within the next minute appends nothing), and a work tree.
 */
async function publisher(t: Test, gw: TestGateway, user: string, body: Record<string, unknown>): Promise<Publisher> {
  const api = session(gw, user);
  const created = await expectJson<{ id: number; token: string }>(
    t,
    await api.post('/api/v1/tokens', { name: `pub-${Math.random()}`, ...body }),
    201,
    'a token',
  );
  await receiveRefs(gw, 'nowhere', { authorization: basic(created.token) });
  await eventually(async () => (await tokenRow(gw, created.id))?.last_used_at ?? null);
  await gw.settled();
  const client = gitClient(t, created.token);
  const work = join(client.home, 'work');
  await client.run(['init', '--quiet', '--initial-branch=main', work]);
  return { id: created.id, token: created.token, client, work };
}

async function commit(work: string, files: Readonly<Record<string, string>>, message = 'update'): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  await gitIn(work, 'add', '-A');
  await gitIn(work, 'commit', '--quiet', '--allow-empty', '-m', message);
  return gitIn(work, 'rev-parse', 'HEAD');
}

const push = (p: Publisher, gw: TestGateway, name: string, ...args: string[]) =>
  p.client.run(
    [
      'push',
      ...args,
      `${gw.url}/publish/${name}`,
      ...(args.some((a) => a.includes(':')) ? [] : ['HEAD:refs/heads/main']),
    ],
    p.work,
  );

/**
 * assertNothingChanged (event store head; tokens, grants, ledger, marketplaces rows), plus the
 * quarantine's refs and the marketplace's snapshots.
 */
async function unchanged<T>(
  t: Test,
  gw: TestGateway,
  api: Client,
  name: string,
  fn: () => Promise<T>,
  what: string,
): Promise<T> {
  const before = await marketplace(t, api, name);
  const refs = quarantineRefs(gw, before.id);
  const result = await assertNothingChanged(t, gw, fn, what);
  t.equal(quarantineRefs(gw, before.id), refs, `${what} left the quarantine's refs as they were`);
  t.strictSame(await marketplace(t, api, name), before, `${what} left ${name} and its snapshots as they were`);
  return result;
}

t.test(
  'append-only (default): fast-forward pushes are captured as held snapshots; a push never changes what is served',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted' }), 201);
    const alice = await publisher(t, gw, 'alice', { pushScopes: ['team'] });

    const first = await commit(alice.work, marketplaceFiles('team', ['alpha']), 'first');
    const pushed = await push(alice, gw, 'team');
    t.ok(pushed.ok, `the first push (creating main) succeeds: ${pushed.stderr}`);
    t.match(
      pushed.stderr,
      new RegExp(
        `remote: gateway: captured ${first} as snapshot \\d+ \\(held\\); nothing is served until it is approved`,
      ),
      'git prints what became of the push',
    );
    let team = await marketplace(t, root, 'team');
    t.match(
      team,
      {
        servedSha: null,
        lastIngestOutcome: 'succeeded',
        snapshots: [{ sha: first, state: 'held', ingestedBy: 'alice' }],
      },
      'spec: ingested as a held snapshot, ingestedBy the pushing principal; nothing served',
    );
    const firstSnapshot = team.snapshots[0]!;

    const pushes = await ledger(gw, 'marketplace-pushed');
    t.equal(pushes.length, 1, 'one marketplace-pushed entry');
    t.match(pushes[0], {
      source: '127.0.0.1',
      principal: 'alice',
      actor_type: 'human',
      marketplace: 'team',
      marketplace_id: String(team.id),
      token_id: String(alice.id),
      detail: `previousTip=none newTip=${first} forced=false pushPolicy=append-only`,
    });
    const audit = await expectJson<{
      entries: Array<{
        event: string;
        ref: string | null;
        sha: string | null;
        detail: string | null;
        principal: string;
      }>;
    }>(t, await root.get('/api/v1/audit?marketplace=team&limit=100'), 200);
    t.match(
      audit.entries.find((e) => e.event === 'marketplace-pushed'),
      { ref: 'refs/heads/main', sha: first },
      'the entry names the ref and the new tip',
    );
    t.match(
      audit.entries.find((e) => e.event === 'ingest-succeeded'),
      { principal: 'alice', sha: first, detail: /trigger=push/ },
      'the ingest is attributed to the push',
    );
    t.ok(
      audit.entries.some((e) => e.event === 'vetting-completed' && e.sha === first),
      'ingestion ran the vetting chain',
    );

    const second = await commit(alice.work, { 'plugins/alpha/README.md': 'two\n' }, 'second');
    const ff = await push(alice, gw, 'team');
    t.ok(ff.ok, `a fast-forward push succeeds: ${ff.stderr}`);
    t.match(ff.stderr, new RegExp(`${first.slice(0, 7)}\\.\\.${second.slice(0, 7)} +HEAD -> main`));
    team = await marketplace(t, root, 'team');
    t.equal(team.snapshots.length, 2, 'a second held snapshot');
    const secondSnapshot = team.snapshots.find((s) => s.sha === second)!;
    t.match(secondSnapshot, { state: 'held', ingestedBy: 'alice' });
    t.match((await ledger(gw, 'marketplace-pushed'))[1], {
      detail: `previousTip=${first} newTip=${second} forced=false pushPolicy=append-only`,
    });

    // Approval is the only act that changes what is served.
    await expectJson(
      t,
      await root.post(`/api/v1/snapshots/${secondSnapshot.id}/approve`),
      200,
      'approve the second push',
    );
    t.equal((await marketplace(t, root, 'team')).servedSha, second);
    const third = await commit(alice.work, { 'plugins/alpha/README.md': 'three\n' }, 'third');
    t.ok((await push(alice, gw, 'team')).ok, 'a third push');
    team = await marketplace(t, root, 'team');
    t.equal(team.servedSha, second, 'a push does not change the served commit');
    t.match(
      team.snapshots.find((s) => s.sha === third),
      { state: 'held' },
    );
    const reader = await expectJson<{ token: string }>(
      t,
      await root.post('/api/v1/tokens', { name: 'reader', scopes: ['team'] }),
      201,
    );
    const clone = await gitClient(t, reader.token).clone(`${gw.url}/git/team`);
    t.ok(clone.ok, clone.stderr);
    t.equal(
      await gitIn(clone.dir, 'rev-parse', 'HEAD'),
      second,
      'the facade serves the approved commit, not the pushed tip',
    );

    // The quarantine pins every pushed commit; the publisher sees only main.
    const refs = quarantineRefs(gw, team.id);
    for (const sha of [first, second, third])
      t.match(refs, `${sha} refs/quarantine/${sha}`, `the push of ${sha.slice(0, 7)} is pinned`);
    t.match(refs, `${third} refs/heads/main`);
    const advertised = await receiveRefs(gw, 'team', { authorization: basic(alice.token) });
    t.equal(advertised.status, 200);
    t.equal(advertised.headers.get('content-type'), 'application/x-git-receive-pack-advertisement');
    const text = advertised.body.toString('latin1');
    t.match(text, /^001f# service=git-receive-pack\n0000/, 'the smart HTTP preamble');
    t.match(text, `${third} refs/heads/main\0`, 'main is advertised with the capabilities');
    t.notMatch(text, /refs\/quarantine|refs\/staging/, 'nothing but main is on the wire');
    t.notMatch(text, /push-options|push-cert/, 'no push options and no signed pushes are offered');

    // Re-ingest: hosted marketplaces can be re-ingested through the same ingest endpoint.
    const again = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/team/ingest'), 201, 're-ingest');
    t.match(
      again,
      { sha: third, id: team.snapshots.find((s) => s.sha === third)!.id },
      'the pushed main, already captured: no second snapshot',
    );
    team = await marketplace(t, root, 'team');
    t.equal(team.snapshots.length, 3);
    t.match(
      team.snapshots.find((s) => s.id === firstSnapshot.id),
      { sha: first, state: 'held' },
      'the first push is still held',
    );
  },
);

t.test('append-only: a rewrite is refused with a clear git error, and nothing changes', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted', pushPolicy: 'append-only' }),
    201,
  );
  const alice = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const tip = await commit(alice.work, marketplaceFiles('team', ['alpha']), 'first');
  t.ok((await push(alice, gw, 'team')).ok);
  await gitIn(alice.work, 'commit', '--quiet', '--amend', '-m', 'rewritten');
  const rewritten = await gitIn(alice.work, 'rev-parse', 'HEAD');

  const fresh = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const forced = await unchanged(
    t,
    gw,
    root,
    'team',
    () => fresh.client.run(['push', '--force', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], alice.work),
    'a forced rewrite on append-only',
  );
  t.notOk(forced.ok, 'git push --force fails');
  t.match(forced.stderr, /! \[remote rejected\] HEAD -> main \(non-fast-forward\)/, 'git shows the rejection of main');
  t.match(
    forced.stderr,
    /remote: gateway: team is append-only: a push that rewrites the history of main is refused/,
    'and why, as a remote: line',
  );
  t.match(
    quarantineRefs(gw, (await marketplace(t, root, 'team')).id),
    `${tip} refs/heads/main`,
    'main still holds the old tip',
  );
  t.notMatch(
    quarantineRefs(gw, (await marketplace(t, root, 'team')).id),
    rewritten,
    'the rewritten commit is referenced nowhere',
  );

  const plain = await unchanged(
    t,
    gw,
    root,
    'team',
    () => fresh.client.run(['push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], alice.work),
    'an unforced rewrite',
  );
  t.notOk(plain.ok, 'without --force git refuses on its own side');
  t.match(plain.stderr, /non-fast-forward|fetch first/);
});

t.test('allow-rewrite: a rewrite is accepted and both tips are on the ledger', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'studio', origin: 'hosted', pushPolicy: 'allow-rewrite' }),
    201,
  );
  const bob = await publisher(t, gw, 'bob', { pushScopes: ['studio'] });
  const before = await commit(bob.work, marketplaceFiles('studio', ['alpha']), 'first');
  t.ok((await push(bob, gw, 'studio')).ok);
  const ff = await commit(bob.work, { 'plugins/alpha/README.md': 'more\n' }, 'second');
  t.ok((await push(bob, gw, 'studio')).ok, 'a fast-forward on allow-rewrite');
  await gitIn(bob.work, 'reset', '--quiet', '--hard', before);
  const after = await commit(bob.work, { 'plugins/alpha/README.md': 'another history\n' }, 'rewritten');

  const forced = await push(bob, gw, 'studio', '--force');
  t.ok(forced.ok, `git push --force succeeds: ${forced.stderr}`);
  t.match(forced.stderr, /\+ [0-9a-f]+\.\.\.[0-9a-f]+ +HEAD -> main \(forced update\)/, 'git reports a forced update');
  t.match(forced.stderr, new RegExp(`remote: gateway: captured ${after} as snapshot \\d+ \\(held\\)`));

  const entries = await ledger(gw, 'marketplace-pushed');
  t.equal(entries.length, 3);
  t.match(
    entries[1],
    { principal: 'bob', detail: `previousTip=${before} newTip=${ff} forced=false pushPolicy=allow-rewrite` },
    'the fast-forward is not forced',
  );
  t.match(
    entries[2],
    { principal: 'bob', detail: `previousTip=${ff} newTip=${after} forced=true pushPolicy=allow-rewrite` },
    'spec: allow-rewrite records both tips on the ledger',
  );
  const audit = await expectJson<{ entries: Array<{ event: string; sha: string | null; ref: string | null }> }>(
    t,
    await root.get('/api/v1/audit?limit=100'),
    200,
  );
  t.match(
    audit.entries.find((e) => e.event === 'marketplace-pushed'),
    { sha: after, ref: 'refs/heads/main' },
    'the newest entry carries the new tip as its sha',
  );

  const studio = await marketplace(t, root, 'studio');
  t.strictSame(
    studio.snapshots.map((s) => [s.sha, s.state, s.ingestedBy]).sort(),
    [
      [before, 'held', 'bob'],
      [ff, 'held', 'bob'],
      [after, 'held', 'bob'],
    ].sort(),
    'every pushed tip is a held snapshot',
  );
  const refs = quarantineRefs(gw, studio.id);
  t.match(refs, `${after} refs/heads/main`);
  t.match(
    refs,
    `${ff} refs/quarantine/${ff}`,
    'the rewritten-away commit stays pinned: its snapshot can still be approved',
  );
  const old = studio.snapshots.find((s) => s.sha === ff)!;
  await expectJson(
    t,
    await root.post(`/api/v1/snapshots/${old.id}/approve`),
    200,
    'approve the commit the rewrite replaced',
  );
  t.equal((await marketplace(t, root, 'studio')).servedSha, ff);
});

t.test('a push that cannot be recorded is refused and main is put back', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted' }), 201);
  const alice = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const first = await commit(alice.work, marketplaceFiles('team', ['alpha']), 'first');
  t.ok((await push(alice, gw, 'team')).ok);
  const second = await commit(alice.work, { 'plugins/alpha/README.md': 'two\n' }, 'second');

  const db = new pg.Client({ connectionString: gw.core.database.url });
  await db.connect();
  t.teardown(async () => {
    await db.query('drop trigger if exists refuse_publish on es.events').catch(() => {});
    await db.end();
  });
  await db.query(`create or replace function refuse_publish_for_test() returns trigger language plpgsql as $$
    begin raise exception 'ledger unavailable (test)'; end $$`);
  await db.query(`create trigger refuse_publish before insert on es.events for each row
    when (new.stream_id like 'publish-%') execute function refuse_publish_for_test()`);
  const fresh = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const refused = await unchanged(
    t,
    gw,
    root,
    'team',
    () => fresh.client.run(['push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], alice.work),
    'a push the ledger cannot record',
  );
  t.notOk(refused.ok, 'git push fails');
  t.match(
    refused.stderr,
    /! \[remote rejected\] HEAD -> main \(the gateway could not record the push on its ledger; nothing changed, push again later\)/,
  );
  const refs = quarantineRefs(gw, (await marketplace(t, root, 'team')).id);
  t.match(refs, `${first} refs/heads/main`, 'main is back at the previous tip');
  t.notMatch(refs, second, 'and the pushed commit is not pinned');

  await db.query('drop trigger refuse_publish on es.events');
  const again = await fresh.client.run(['push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], alice.work);
  t.ok(again.ok, `once the ledger is writable the same push works: ${again.stderr}`);
  t.match(await ledger(gw, 'marketplace-pushed'), [
    {},
    { detail: `previousTip=${first} newTip=${second} forced=false pushPolicy=append-only` },
  ]);
});

t.test('ref rules: only refs/heads/main, never deleted; each refusal changes nothing', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted', pushPolicy: 'allow-rewrite' }),
    201,
  );
  const alice = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  await commit(alice.work, marketplaceFiles('team', ['alpha']), 'first');
  t.ok((await push(alice, gw, 'team')).ok);
  await commit(alice.work, { 'plugins/alpha/README.md': 'next\n' }, 'second');
  await gitIn(alice.work, 'tag', 'v1');
  const fresh = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const url = `${gw.url}/publish/team`;
  const cases: Array<[string, string[], RegExp]> = [
    [
      'another branch',
      ['HEAD:refs/heads/feature'],
      /! \[remote rejected\] HEAD -> feature \(only refs\/heads\/main can be pushed to a hosted marketplace\)/,
    ],
    ['a tag', ['refs/tags/v1'], /! \[remote rejected\] v1 -> v1 \(only refs\/heads\/main/],
    ['a gateway ref', [`HEAD:refs/quarantine/${'a'.repeat(40)}`], /remote rejected\].*only refs\/heads\/main/],
    [
      'deleting main (even with allow-rewrite)',
      [':refs/heads/main'],
      /! \[remote rejected\] main \(refs\/heads\/main of a hosted marketplace cannot be deleted\)/,
    ],
    [
      'main together with another ref (a push is taken whole)',
      ['HEAD:refs/heads/main', 'HEAD:refs/heads/feature'],
      /! \[remote rejected\] HEAD -> main \(not applied: another ref of the same push was refused\)/,
    ],
  ];
  for (const [why, specs, expected] of cases) {
    const answer = await unchanged(
      t,
      gw,
      root,
      'team',
      () => fresh.client.run(['push', url, ...specs], alice.work),
      `pushing ${why}`,
    );
    t.notOk(answer.ok, `pushing ${why} fails`);
    t.match(answer.stderr, expected, `git shows why (${why})`);
    t.match(answer.stderr, /remote: gateway: /, 'with a remote: line');
  }
});

t.test('unknown, upstream, removed and out-of-scope marketplaces answer one 404; bad credentials 401', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('up', ['alpha']));
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'up', url: upstream.url }), 201);
  for (const name of ['team', 'other', 'gone'])
    await expectJson(t, await root.post('/api/v1/marketplaces', { name, origin: 'hosted' }), 201);
  const holder = await publisher(t, gw, 'alice', { pushScopes: ['team', 'gone'] });
  await commit(holder.work, marketplaceFiles('team', ['alpha']), 'first');
  t.ok((await push(holder, gw, 'team')).ok, 'the contrast: the token pushes to team');
  await expectJson(
    t,
    await root.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }),
    200,
    'remove gone',
  );

  const otherScope = await publisher(t, gw, 'alice', { pushScopes: ['other'] });
  const fetchOnly = await publisher(t, gw, 'alice', { scopes: ['team'] });
  const everything = await publisher(t, gw, 'alice', {});
  const reference = await receiveRefs(gw, 'nowhere', { authorization: basic(holder.token) });
  t.equal(reference.status, 404);
  t.equal(reference.headers.get('www-authenticate'), null);
  const pushBody = Buffer.concat([
    pkt(`${zero} ${'a'.repeat(40)} refs/heads/main\0report-status side-band-64k\n`),
    flush,
  ]);
  const cases: Array<[string, string, string]> = [
    ['an unknown marketplace', 'nowhere', holder.token],
    ['an upstream marketplace', 'up', holder.token],
    ['a removed marketplace (its push grant went with it)', 'gone', holder.token],
    ['a token whose pushScopes name another marketplace', 'team', otherScope.token],
    ['a token with fetch scopes only', 'team', fetchOnly.token],
    ['a token with no scopes at all (fetch everything, publish nowhere)', 'team', everything.token],
    ['an invalid name', 'Team_!', holder.token],
    ['a name with a double .git', 'team.git.git', holder.token],
  ];
  for (const [why, repo, token] of cases) {
    await unchanged(
      t,
      gw,
      root,
      'team',
      async () => {
        const refs = await receiveRefs(gw, repo, { authorization: basic(token) });
        t.equal(refs.status, 404, `info/refs: 404 for ${why}`);
        t.equal(refs.body.toString(), reference.body.toString(), `info/refs: the same body for ${why}`);
        t.equal(refs.headers.get('content-type'), reference.headers.get('content-type'));
        const post = await receivePack(gw, repo, pushBody, { authorization: basic(token) });
        t.equal(post.status, 404, `git-receive-pack: 404 for ${why}`);
        t.equal(post.body.toString(), reference.body.toString());
      },
      why,
    );
  }
  t.equal(
    (await receiveRefs(gw, 'team.git', { authorization: basic(holder.token) })).status,
    200,
    'an optional .git suffix is stripped',
  );
  const viaGit = await unchanged(
    t,
    gw,
    root,
    'team',
    () => otherScope.client.run(['push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], holder.work),
    'a real push without the push scope',
  );
  t.notOk(viaGit.ok);
  t.match(viaGit.stderr, /not found/, 'git says the repository does not exist');

  const revoked = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  t.equal((await root.delete(`/api/v1/tokens/${revoked.id}`)).status, 404, "root cannot revoke alice's token");
  t.equal((await session(gw, 'alice').delete(`/api/v1/tokens/${revoked.id}`)).status, 204, 'alice revokes it');
  const machine = await expectJson<{ token: string }>(
    t,
    await root.post('/api/v1/tokens/machine', {
      principal: 'bot',
      name: 'bot',
      apiScopes: ['marketplaces:read'],
      expiresAt: inMs(day),
    }),
    201,
    'a machine credential',
  );
  await gw.settled();
  const credentials: Array<[string, Record<string, string>]> = [
    ['no credentials', {}],
    ['a garbage password', { authorization: basic('garbage') }],
    ['a revoked token', { authorization: basic(revoked.token) }],
    ['a machine credential', { authorization: basic(machine.token) }],
    ['the development hatch header', { 'x-dev-user': 'root' }],
  ];
  for (const [why, headers] of credentials) {
    await unchanged(
      t,
      gw,
      root,
      'team',
      async () => {
        for (const repo of ['team', 'nowhere']) {
          const refs = await receiveRefs(gw, repo, headers);
          t.equal(refs.status, 401, `info/refs of ${repo}: 401 for ${why}`);
          t.match(refs.headers.get('www-authenticate') ?? '', /^Basic /, 'a Basic challenge');
          t.notMatch(refs.headers.get('content-type') ?? '', /json/, "in git's terms, not a problem document");
          const post = await receivePack(gw, repo, pushBody, headers);
          t.equal(post.status, 401, `git-receive-pack of ${repo}: 401 for ${why}`);
          t.match(post.headers.get('www-authenticate') ?? '', /^Basic /);
        }
      },
      why,
    );
  }
  const anonymous = await unchanged(
    t,
    gw,
    root,
    'team',
    () => gitClient(t, null).run(['push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'], holder.work),
    'a real push without credentials',
  );
  t.notOk(anonymous.ok);
  t.match(anonymous.stderr, /could not read Username|Authentication failed/);
});

t.test('the wire: services, bodies, limits and gzip', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted' }), 201);
  const alice = await publisher(t, gw, 'alice', { pushScopes: ['team'] });
  const auth = { authorization: basic(alice.token) };
  const first = await commit(alice.work, marketplaceFiles('team', ['alpha']), 'first');
  const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], {
    cwd: alice.work,
    input: `${first}\n`,
  });
  const create = (caps: string) => Buffer.concat([pkt(`${zero} ${first} refs/heads/main\0${caps}\n`), flush, pack]);

  await unchanged(
    t,
    gw,
    root,
    'team',
    async () => {
      const upload = await send(gw, '/publish/team/info/refs?service=git-upload-pack', { headers: auth });
      t.equal(upload.status, 403, 'fetching is not served here');
      t.match(upload.body.toString(), /Service not enabled: 'upload-pack'/);
      t.equal((await send(gw, '/publish/team/git-upload-pack', { method: 'POST', headers: auth })).status, 403);
      t.equal(
        (await send(gw, '/publish/team/info/refs', { headers: auth })).status,
        403,
        'the dumb protocol is not served',
      );
      t.equal((await send(gw, '/publish/team/HEAD', { headers: auth })).status, 404);
      const malformed: Array<[string, Buffer]> = [
        ['zzzz', Buffer.from('zzzz')],
        ['an empty body', Buffer.alloc(0)],
        ['a truncated command list', pkt(`${zero} ${first} refs/heads/main\0report-status\n`)],
        ['a short object id', Buffer.concat([pkt(`${zero} abc refs/heads/main\0report-status\n`), flush])],
        ['a signed push', Buffer.concat([pkt('push-cert\0report-status\n'), flush])],
      ];
      for (const [why, body] of malformed) {
        const answer = await receivePack(gw, 'team', body, auth);
        t.equal(answer.status, 400, `400 for ${why}`);
        t.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
        t.match(answer.body.toString(), /malformed request/);
      }
      const noReport = await receivePack(gw, 'team', create('side-band-64k'), auth);
      t.equal(noReport.status, 400, 'a push that asks for no report-status');
      t.equal(
        (await receivePack(gw, 'team', Buffer.from('not gzip'), { ...auth, 'content-encoding': 'gzip' })).status,
        400,
        'a body that is not gzip',
      );
      t.equal(
        (await receivePack(gw, 'team', create('report-status'), { ...auth, 'content-encoding': 'br' })).status,
        415,
        'an unknown content encoding',
      );
      t.equal(
        (
          await receivePack(gw, 'team', create('report-status'), {
            ...auth,
            'content-type': 'application/octet-stream',
          })
        ).status,
        415,
        'another content type',
      );
      const longRef = pkt(`${zero} ${first} refs/heads/${'x'.repeat(65_000)}\n`);
      const huge = await receivePack(gw, 'team', Buffer.concat(Array.from({ length: 17 }, () => longRef)), auth);
      t.equal(huge.status, 413, 'a command list over 1 MiB');
      const probe = await receivePack(gw, 'team', flush, auth);
      t.equal(probe.status, 200, "git's probe before a large push (a lone flush) is answered");
      t.equal(probe.body.length, 0, 'with nothing');
    },
    'wire refusals',
  );

  // A push built by hand, gzip-encoded, without side-band: the bare report.
  const zipped = await receivePack(gw, 'team', gzipSync(create('report-status agent=test/1')), {
    ...auth,
    'content-encoding': 'gzip',
  });
  t.equal(zipped.status, 200);
  t.equal(zipped.headers.get('content-type'), 'application/x-git-receive-pack-result');
  t.equal(
    zipped.body.toString('latin1'),
    '000eunpack ok\n0017ok refs/heads/main\n0000',
    'report-status without side-band',
  );
  const team = await marketplace(t, root, 'team');
  t.match(team.snapshots, [{ sha: first, state: 'held', ingestedBy: 'alice' }]);
  t.match(await ledger(gw, 'marketplace-pushed'), [
    { principal: 'alice', detail: `previousTip=none newTip=${first} forced=false pushPolicy=append-only` },
  ]);

  // The same creation again: git refuses it (main exists), and nothing is recorded.
  const stale = await unchanged(
    t,
    gw,
    root,
    'team',
    () => receivePack(gw, 'team', create('report-status side-band-64k'), auth),
    'a stale push',
  );
  t.match(stale.body.toString('latin1'), /ng refs\/heads\/main/, 'the stale update is refused inside the report');

  // A manifest that breaks policy: the push succeeds, the snapshot is rejected, and git says so.
  const broken = await commit(alice.work, { '.claude-plugin/marketplace.json': '{ not json' }, 'broken');
  const answer = await push(alice, gw, 'team');
  t.ok(answer.ok, answer.stderr);
  t.match(answer.stderr, new RegExp(`captured ${broken} as snapshot \\d+ \\(rejected: `));
  t.match(
    (await marketplace(t, root, 'team')).snapshots.find((s) => s.sha === broken),
    { state: 'rejected', ingestedBy: 'alice' },
  );

  // A push larger than the client's post buffer: git first probes with a lone flush, then streams the
  // body with chunked transfer encoding.
  const large = await commit(
    alice.work,
    {
      '.claude-plugin/marketplace.json': marketplaceFiles('team', ['alpha'])['.claude-plugin/marketplace.json']!,
      'plugins/alpha/data.bin': randomBytes(400_000).toString('base64'),
    },
    'large',
  );
  const streamed = await alice.client.run(
    ['-c', 'http.postBuffer=65536', 'push', `${gw.url}/publish/team`, 'HEAD:refs/heads/main'],
    alice.work,
  );
  t.ok(streamed.ok, `a large push succeeds: ${streamed.stderr}`);
  t.match(
    (await marketplace(t, root, 'team')).snapshots.find((s) => s.sha === large),
    { state: 'held', ingestedBy: 'alice' },
  );
});
