import { gzipSync } from 'node:zlib';
import pg from 'pg';
import t, { type Test } from 'tap';
import { SessionStore } from '../../../src/adapters/postgres/session-store.ts';
import {
  day,
  expectJson,
  expectProblem,
  hour,
  inMs,
  ledger,
  session,
  settle,
  type Client,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// docs/facade.md: the facade's rules, its credentials and its ledger entries (info-refs, upload-pack: ref
// attribution; the append is synchronous: a fetch fails if the ledger cannot be written); decisions 53, 54.

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const agent = 'agent=git/2.39.5';

/** One pkt-line (4 hex digits of length, then the payload), written independently of the code under test. */
const pkt = (text: string) =>
  Buffer.concat([Buffer.from((Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')), Buffer.from(text)]);
const flush = Buffer.from('0000');
const delim = Buffer.from('0001');
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;

/** A v2 fetch as git 2.39 sends it (captured from the real client), wanting `wants`; `done` ends negotiation. */
const v2Fetch = (wants: readonly string[], done = true) =>
  Buffer.concat([
    pkt('command=fetch'),
    pkt(agent),
    pkt('object-format=sha1'),
    delim,
    pkt('thin-pack'),
    pkt('no-progress'),
    pkt('ofs-delta'),
    ...wants.map((sha) => pkt(`want ${sha}\n`)),
    ...(done ? [pkt('done\n')] : []),
    flush,
  ]);
const v2LsRefs = Buffer.concat([
  pkt('command=ls-refs\n'),
  pkt(agent),
  pkt('object-format=sha1'),
  delim,
  pkt('peel\n'),
  pkt('symrefs\n'),
  pkt('unborn\n'),
  pkt('ref-prefix HEAD\n'),
  pkt('ref-prefix refs/heads/\n'),
  pkt('ref-prefix refs/tags/\n'),
  flush,
]);
/** A v0 request: the first want carries the capabilities; haves after a flush; `done` or not. */
const v0Request = (want: string, haves: readonly string[], done: boolean) =>
  Buffer.concat([
    pkt(`want ${want} multi_ack_detailed side-band-64k thin-pack no-progress ofs-delta ${agent}\n`),
    flush,
    ...haves.map((sha) => pkt(`have ${sha}\n`)),
    done ? pkt('done\n') : flush,
  ]);

type Answer = { status: number; headers: Headers; body: Buffer; error: string | null };

/** A request to the gateway; a connection the gateway destroys is an answer too (error set, no body). */
async function send(
  gw: TestGateway,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  try {
    const response = await gw.fetch(path, {
      method: init.method ?? 'GET',
      headers: init.headers ?? {},
      ...(init.body ? { body: init.body } : {}),
    });
    try {
      return {
        status: response.status,
        headers: response.headers,
        body: Buffer.from(await response.arrayBuffer()),
        error: null,
      };
    } catch (error) {
      return { status: response.status, headers: response.headers, body: Buffer.alloc(0), error: String(error) };
    }
  } catch (error) {
    return { status: 0, headers: new Headers(), body: Buffer.alloc(0), error: String(error) };
  }
}

const uploadPack = (gw: TestGateway, repo: string, body: Buffer, headers: Record<string, string>) =>
  send(gw, `/git/${repo}/git-upload-pack`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-git-upload-pack-request',
      accept: 'application/x-git-upload-pack-result',
      ...headers,
    },
  });
const infoRefs = (gw: TestGateway, repo: string, headers: Record<string, string> = {}, service = 'git-upload-pack') =>
  send(gw, `/git/${repo}/info/refs?service=${service}`, { headers });

type Entry = {
  id: number;
  source: string;
  principal: string;
  actorType: string;
  marketplace: string;
  event: string;
  ref: string | null;
  sha: string | null;
  tokenId: number | null;
  credential_kind: string | null;
};

/** Ledger entries of the facade, oldest first (GET /api/v1/audit after the read models caught up). */
async function facadeEntries(
  t: Test,
  gw: TestGateway,
  api: Client,
  event: 'info-refs' | 'upload-pack',
): Promise<Entry[]> {
  await settle(gw);
  const page = await expectJson<{ entries: Entry[] }>(
    t,
    await api.get('/api/v1/audit?limit=10000'),
    200,
    'GET /api/v1/audit',
  );
  return page.entries.filter((e) => e.event === event).reverse();
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/**
 * acme: commit 1 captured but never approved; commit 2 approved then superseded by commit 3 (main).
 * Commit 1 is in the published repository (the parent of commit 2) but is not advertised.
 * held: registered and ingested, never approved. gone: approved, then removed.
 */
async function setUp(t: Test) {
  const gw = await startTestGateway(t, devEnv);
  const api = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const ingest = async (name: string) =>
    await expectJson<{ id: number; sha: string }>(
      t,
      await api.post(`/api/v1/marketplaces/${name}/ingest`),
      201,
      `ingest ${name}`,
    );
  const approve = async (id: number) =>
    expectJson(t, await api.post(`/api/v1/snapshots/${id}/approve`), 200, `approve ${id}`);
  await expectJson(t, await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const first = await ingest('acme');
  await upstream.commit({ 'plugins/alpha/README.md': 'two\n' });
  const second = await ingest('acme');
  await approve(second.id);
  await upstream.commit({ 'plugins/alpha/README.md': 'three\n' });
  const third = await ingest('acme');
  await approve(third.id);
  await expectJson(t, await api.post('/api/v1/marketplaces', { name: 'held', url: upstream.url }), 201);
  await ingest('held');
  await expectJson(t, await api.post('/api/v1/marketplaces', { name: 'gone', url: upstream.url }), 201);
  await approve((await ingest('gone')).id);
  await expectJson(
    t,
    await api.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }),
    200,
    'remove gone',
  );

  const token = await expectJson<{ id: number; token: string }>(
    t,
    await api.post('/api/v1/tokens', { name: 'clone' }),
    201,
  );
  const scoped = await expectJson<{ id: number; token: string }>(
    t,
    await api.post('/api/v1/tokens', { name: 'scoped', scopes: ['held'] }),
    201,
  );
  return {
    gw,
    api,
    upstream,
    token,
    scoped,
    auth: { authorization: basic(token.token) },
    shas: { unapproved: first.sha, older: second.sha, tip: third.sha },
  };
}

t.test('facade refusals and robustness', async (t) => {
  const s: Setup = await setUp(t);
  const { gw, api, auth, shas } = s;
  t.not(shas.unapproved, shas.older);
  t.not(shas.older, shas.tip);

  t.test(
    'spec, Facade rules 1 and 3, Tokens rule 3: not serving, unknown, invalid and out-of-scope names answer one indistinguishable 404',
    async (t) => {
      const served = await infoRefs(gw, 'acme', auth);
      t.equal(served.status, 200, 'the served marketplace answers 200 (the contrast)');
      t.equal((await infoRefs(gw, 'acme.git', auth)).status, 200, 'spec, rule 1: an optional .git suffix is stripped');
      const cases: Array<[string, string, Record<string, string>]> = [
        ['an invalid name (upper case, underscore)', 'Bad_Name', auth],
        ['a 64-character name', 'a'.repeat(64), auth],
        ['a registered marketplace never approved', 'held', auth],
        ['an unknown marketplace', 'nowhere', auth],
        ['a removed marketplace', 'gone', auth],
        ["a marketplace outside a scoped token's list", 'acme', { authorization: basic(s.scoped.token) }],
        ['an invalid name with .git', 'Acme.git', auth],
        ['a double .git suffix', 'acme.git.git', auth],
      ];
      const reference = await infoRefs(gw, 'nowhere', auth);
      t.equal(reference.status, 404);
      for (const [why, repo, headers] of cases) {
        const refs = await infoRefs(gw, repo, headers);
        t.equal(refs.status, 404, `info/refs: 404 for ${why}`);
        t.equal(refs.body.toString(), reference.body.toString(), `info/refs: the same body for ${why}`);
        t.equal(
          refs.headers.get('content-type'),
          reference.headers.get('content-type'),
          `info/refs: the same content type for ${why}`,
        );
        t.equal(refs.headers.get('www-authenticate'), null, `no challenge for ${why}`);
        const post = await uploadPack(gw, repo, v2Fetch([shas.tip]), { ...headers, 'git-protocol': 'version=2' });
        t.equal(post.status, 404, `git-upload-pack: 404 for ${why}`);
        t.equal(post.body.toString(), reference.body.toString(), `git-upload-pack: the same body for ${why}`);
      }
      t.equal(
        (await infoRefs(gw, 'held', { authorization: basic(s.scoped.token) })).status,
        404,
        "the scoped token's own marketplace is not served either",
      );
      t.equal((await send(gw, '/git/acme/HEAD', { headers: auth })).status, 404, 'the dumb protocol is not served');
      t.equal(
        (await send(gw, `/git/acme/objects/${shas.tip.slice(0, 2)}/${shas.tip.slice(2)}`, { headers: auth })).status,
        404,
        'nor loose objects',
      );
    },
  );

  t.test('spec, Facade rule 6: no, bad or revoked credentials get 401 with WWW-Authenticate: Basic', async (t) => {
    const revoked = await expectJson<{ id: number; token: string }>(
      t,
      await api.post('/api/v1/tokens', { name: 'revoked' }),
      201,
    );
    t.equal(
      (await infoRefs(gw, 'acme', { authorization: basic(revoked.token) })).status,
      200,
      'the token works before its revocation',
    );
    t.equal((await api.delete(`/api/v1/tokens/${revoked.id}`)).status, 204);
    const machine = await expectJson<{ token: string }>(
      t,
      await api.post('/api/v1/tokens/machine', {
        principal: 'bot',
        name: 'bot',
        apiScopes: ['marketplaces:read'],
        expiresAt: inMs(day),
      }),
      201,
      'a machine credential',
    );
    const sessions = await SessionStore.open(gw.core.pool);
    const sessionId = await sessions.create(
      { principal: 'root', claims: {}, claimsTruncated: false, expiresAt: inMs(hour) },
      new Date().toISOString(),
    );
    t.equal(
      (await gw.fetch('/api/v1/me', { headers: { 'x-dev-user': 'root' } })).status,
      200,
      'the development hatch header authenticates the API',
    );

    const cases: Array<[string, Record<string, string>]> = [
      ['no credentials', {}],
      ['a garbage password', { authorization: basic('garbage') }],
      ['a well-formed unknown token', { authorization: basic(`gw_${'x'.repeat(43)}`) }],
      ['a revoked token', { authorization: basic(revoked.token) }],
      [
        'a machine credential (spec: it "reaches the API only, never the facade")',
        { authorization: basic(machine.token) },
      ],
      ['Basic that is not base64 of user:password', { authorization: 'Basic !!!' }],
      ['a bearer token while identity-provider bearers are off', { authorization: `Bearer ${s.token.token}` }],
      [
        'the development hatch header (spec: it "never affects /git/**")',
        { 'x-dev-user': 'root', 'x-dev-groups': 'admins' },
      ],
      [
        'a session cookie (spec: "A session cookie never authenticates here")',
        { cookie: `GATEWAY_SESSION=${sessionId}` },
      ],
    ];
    for (const [why, headers] of cases) {
      for (const repo of ['acme', 'nowhere']) {
        const answer = await infoRefs(gw, repo, headers);
        t.equal(answer.status, 401, `info/refs of ${repo}: 401 for ${why}`);
        t.match(answer.headers.get('www-authenticate') ?? '', /^Basic /, `a Basic challenge for ${why}`);
        t.notMatch(answer.headers.get('content-type') ?? '', /json/, 'a text answer, not a problem document');
      }
      const post = await uploadPack(gw, 'acme', v2Fetch([shas.tip]), { ...headers, 'git-protocol': 'version=2' });
      t.equal(post.status, 401, `git-upload-pack: 401 for ${why}`);
      t.match(post.headers.get('www-authenticate') ?? '', /^Basic /);
    }
    const clone = await gitClient(t, revoked.token).clone(`${gw.url}/git/acme`);
    t.notOk(clone.ok, 'the real git client cannot clone with a revoked token');
    t.match(clone.stderr, /Authentication failed|could not read Username/);
  });

  t.test('spec, Facade rule 4: receive-pack is refused with 403 whatever the credential', async (t) => {
    const credentials: Array<[string, Record<string, string>]> = [
      ['no credentials', {}],
      ['a garbage password', { authorization: basic('garbage') }],
      ['a valid token', auth],
    ];
    for (const [why, headers] of credentials) {
      for (const repo of ['acme', 'nowhere', 'Bad_Name']) {
        const refs = await infoRefs(gw, repo, headers, 'git-receive-pack');
        t.equal(refs.status, 403, `GET info/refs?service=git-receive-pack of ${repo} with ${why}`);
        t.match(refs.body.toString(), /Service not enabled: 'receive-pack'/);
        const post = await send(gw, `/git/${repo}/git-receive-pack`, { method: 'POST', headers });
        t.equal(post.status, 403, `POST git-receive-pack (no body) of ${repo} with ${why}`);
        t.match(post.body.toString(), /Service not enabled: 'receive-pack'/);
      }
    }
    const pushBody = Buffer.concat([
      pkt(`${'0'.repeat(40)} ${shas.tip} refs/heads/main\0report-status side-band-64k ${agent}\n`),
      flush,
    ]);
    for (const [why, headers] of credentials) {
      const post = await send(gw, '/git/acme/git-receive-pack', {
        method: 'POST',
        body: pushBody,
        headers: { ...headers, 'content-type': 'application/x-git-receive-pack-request' },
      });
      t.not(post.status, 200, `a POST git-receive-pack with a push body is refused (${why})`);
      t.equal(post.status, 403, `with the same 403 (${why})`);
      t.match(post.body.toString(), /Service not enabled: 'receive-pack'/, 'and the service-not-enabled text');
    }
    const client = gitClient(t, s.token.token);
    const clone = await client.clone(`${gw.url}/git/acme`);
    t.ok(clone.ok, clone.stderr);
    const push = await client.run(['push', `${gw.url}/git/acme`, 'HEAD:refs/heads/main'], clone.dir);
    t.notOk(push.ok, 'git push fails');
    t.match(push.stderr, /403|not enabled/i, 'with the service-not-enabled rejection');
    const sneaky = await client.run(['push', `${gw.url}/git/acme`, 'HEAD:refs/heads/other'], clone.dir);
    t.notOk(sneaky.ok, 'to any ref');
  });

  t.test('an unadvertised commit (in the repository, reachable from an approved one) is "not our ref"', async (t) => {
    const uploadsBefore = (await facadeEntries(t, gw, api, 'upload-pack')).length;
    const v2 = await uploadPack(gw, 'acme', v2Fetch([shas.unapproved]), { ...auth, 'git-protocol': 'version=2' });
    t.equal(v2.status, 200, 'answered inside the protocol');
    t.match(
      v2.body.toString('latin1'),
      new RegExp(`ERR upload-pack: not our ref ${shas.unapproved}`),
      'v2: ERR upload-pack: not our ref',
    );
    t.notOk(v2.body.includes('PACK'), 'no pack');
    const mixed = await uploadPack(gw, 'acme', v2Fetch([shas.tip, shas.unapproved]), {
      ...auth,
      'git-protocol': 'version=2',
    });
    t.match(
      mixed.body.toString('latin1'),
      /ERR upload-pack: not our ref/,
      'one foreign want among advertised ones is refused',
    );
    t.notOk(mixed.body.includes('PACK'));
    const v0 = await uploadPack(gw, 'acme', v0Request(shas.unapproved, [], true), auth);
    t.match(v0.body.toString('latin1'), /ERR upload-pack: not our ref/, 'v0 as well');
    t.notOk(v0.body.includes('PACK'));

    const client = gitClient(t, s.token.token);
    t.ok((await client.run(['init', '--quiet', 'fetch-unapproved'])).ok, 'an empty repository to fetch into');
    const dir = `${client.home}/fetch-unapproved`;
    const fetched = await client.run(['-c', 'protocol.version=2', 'fetch', `${gw.url}/git/acme`, shas.unapproved], dir);
    t.notOk(fetched.ok, 'git fetch <url> <sha> with protocol v2 fails');
    t.match(fetched.stderr, /not our ref/);
    t.notOk((await client.run(['cat-file', '-e', `${shas.unapproved}^{commit}`], dir)).ok, 'the commit did not arrive');
    t.equal(
      (await facadeEntries(t, gw, api, 'upload-pack')).length,
      uploadsBefore,
      'no upload-pack entry for a refused want',
    );
  });

  t.test('decision 54: a malformed body gets a 400 text answer, not JSON', async (t) => {
    const bodies: Array<[string, Buffer]> = [
      ['zzzz', Buffer.from('zzzz')],
      ['a length past the end', Buffer.from('00ffwant ')],
      ['a truncated length prefix', Buffer.concat([pkt('command=fetch'), Buffer.from('00')])],
      ['a want that is not an object id', Buffer.concat([pkt('command=fetch'), delim, pkt('want HEAD\n'), flush])],
    ];
    for (const [why, body] of bodies) {
      for (const version of [0, 2] as const) {
        const answer = await uploadPack(gw, 'acme', body, {
          ...auth,
          ...(version === 2 ? { 'git-protocol': 'version=2' } : {}),
        });
        t.equal(answer.status, 400, `v${version}: 400 for ${why}`);
        t.match(answer.headers.get('content-type') ?? '', /^text\/plain/, 'text/plain');
        t.throws(() => JSON.parse(answer.body.toString()), `not a JSON document (${why})`);
        t.match(answer.body.toString(), /malformed/);
      }
    }
  });

  t.test("decision 54: bodies are capped at 8 MiB (413 in git's terms)", async (t) => {
    const big = Buffer.concat([v2Fetch([shas.tip]).subarray(0, -4), Buffer.alloc(8 * 1024 * 1024, 0x30), flush]);
    const answer = await uploadPack(gw, 'acme', big, { ...auth, 'git-protocol': 'version=2' });
    t.equal(answer.status, 413);
    t.match(answer.headers.get('content-type') ?? '', /^text\/plain/, 'a text answer');
    // 21,000 have lines: a negotiation round far larger than git's (it doubles from 16 up to 16,384).
    const haves = Array.from({ length: 21_000 }, (_, i) => pkt(`have ${i.toString(16).padStart(40, 'f')}\n`));
    const fits = Buffer.concat([v2Fetch([shas.tip]).subarray(0, -4), ...haves, flush]);
    t.ok(fits.length > 1024 * 1024, 'over 1 MiB');
    t.ok(
      (await uploadPack(gw, 'acme', fits, { ...auth, 'git-protocol': 'version=2' })).body.includes('PACK'),
      'a 1 MiB request (have lines) is served',
    );
    const flood = Buffer.concat([v2Fetch([shas.tip]), Buffer.alloc(1024 * 1024, 0x30)]);
    const flooded = await uploadPack(gw, 'acme', flood, { ...auth, 'git-protocol': 'version=2' });
    t.equal(flooded.status, 400, 'flush packets after the end of the request are refused');
    t.match(flooded.body.toString(), /malformed request: data after the end of the request/);
  });

  t.test('a request body of another content type is refused as a client error, not a server failure', async (t) => {
    for (const type of ['application/octet-stream', 'text/plain']) {
      const answer = await send(gw, '/git/acme/git-upload-pack', {
        method: 'POST',
        body: v2Fetch([shas.tip]),
        headers: { ...auth, 'git-protocol': 'version=2', 'content-type': type },
      });
      t.notOk(answer.body.includes('PACK'), `${type}: nothing served`);
      t.equal(answer.status, 415, `${type}: 415`);
    }
  });

  t.test(
    'Content-Encoding: gzip: a valid request is inflated and served; one inflating past 8 MiB is 400',
    async (t) => {
      const zipped = await uploadPack(gw, 'acme', gzipSync(v2Fetch([shas.tip])), {
        ...auth,
        'git-protocol': 'version=2',
        'content-encoding': 'gzip',
      });
      t.equal(zipped.status, 200);
      t.match(zipped.body.toString('latin1'), /packfile\n/, 'the packfile section');
      t.ok(zipped.body.includes('PACK'), 'a pack');
      const lsRefs = await uploadPack(gw, 'acme', gzipSync(v2LsRefs), {
        ...auth,
        'git-protocol': 'version=2',
        'content-encoding': 'gzip',
      });
      t.match(lsRefs.body.toString(), new RegExp(`${shas.tip} refs/heads/main`), 'a gzip-encoded ls-refs');

      const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024 + 4096));
      t.ok(bomb.length < 8 * 1024 * 1024, `the bomb itself is small (${bomb.length} bytes)`);
      const exploded = await uploadPack(gw, 'acme', bomb, {
        ...auth,
        'git-protocol': 'version=2',
        'content-encoding': 'gzip',
      });
      t.equal(exploded.status, 400, 'inflating past 8 MiB is refused');
      t.match(exploded.headers.get('content-type') ?? '', /^text\/plain/);
      const garbage = await uploadPack(gw, 'acme', Buffer.from('not gzip at all'), {
        ...auth,
        'git-protocol': 'version=2',
        'content-encoding': 'gzip',
      });
      t.equal(garbage.status, 400, 'a body that is not gzip is refused');
    },
  );

  t.test(
    'spec, Events: "Negotiation rounds are not recorded": ls-refs and a v0 round without done record no upload-pack entry',
    async (t) => {
      const before = (await facadeEntries(t, gw, api, 'upload-pack')).length;
      const lsRefs = await uploadPack(gw, 'acme', v2LsRefs, { ...auth, 'git-protocol': 'version=2' });
      t.equal(lsRefs.status, 200);
      const refs = lsRefs.body.toString();
      t.match(refs, new RegExp(`${shas.tip} HEAD symref-target:refs/heads/main`));
      t.match(refs, new RegExp(`${shas.tip} refs/heads/main`));
      t.notMatch(refs, new RegExp(shas.unapproved), 'never the unapproved commit');
      t.equal(
        (await facadeEntries(t, gw, api, 'upload-pack')).length,
        before,
        'v2 ls-refs records no upload-pack entry',
      );

      const round = await uploadPack(gw, 'acme', v0Request(shas.tip, [shas.older], false), auth);
      t.equal(round.status, 200);
      t.match(round.body.toString('latin1'), /ACK [0-9a-f]{40}/, 'the answer is acknowledgements');
      t.notOk(round.body.includes('PACK'), 'and no pack');
      t.equal(
        (await facadeEntries(t, gw, api, 'upload-pack')).length,
        before,
        'a v0 negotiation round records no upload-pack entry',
      );
      const v2Round = await uploadPack(
        gw,
        'acme',
        Buffer.concat([v2Fetch([shas.tip], false).subarray(0, -4), pkt(`have ${'f'.repeat(40)}\n`), flush]),
        { ...auth, 'git-protocol': 'version=2' },
      );
      t.equal(v2Round.status, 200);
      t.match(
        v2Round.body.toString('latin1'),
        /acknowledgments\n.*NAK/s,
        'a v2 round without done and nothing in common: acknowledgments only',
      );
      t.notOk(v2Round.body.includes('packfile'), 'no packfile section');
      t.equal(
        (await facadeEntries(t, gw, api, 'upload-pack')).length,
        before,
        'a v2 negotiation round records no upload-pack entry',
      );

      const done = await uploadPack(gw, 'acme', v0Request(shas.tip, [shas.older], true), auth);
      t.ok(done.body.includes('PACK'), 'with done the pack is sent');
      const after = await facadeEntries(t, gw, api, 'upload-pack');
      t.equal(after.length, before + 1, 'and then one entry is recorded (the count can move)');
      t.match(after.at(-1), { ref: 'refs/heads/main', sha: shas.tip });
    },
  );

  t.test(
    'spec, Events: upload-pack entries carry the advertised ref the want resolves to; info-refs entries the client and credential',
    async (t) => {
      const before = await facadeEntries(t, gw, api, 'upload-pack');
      const client = gitClient(t, s.token.token);
      const url = `${gw.url}/git/acme`;
      const clone = await client.clone(url, { protocol: 2 });
      t.ok(clone.ok, clone.stderr);
      t.ok((await client.run(['init', '--quiet', 'older'])).ok, 'an empty repository to fetch into');
      const older = await client.run(['-c', 'protocol.version=2', 'fetch', url, shas.older], `${client.home}/older`);
      t.ok(older.ok, `git fetch <url> <older pinned sha>: ${older.stderr}`);
      t.equal((await client.run(['rev-parse', 'FETCH_HEAD'], `${client.home}/older`)).stdout, shas.older);

      const uploads = (await facadeEntries(t, gw, api, 'upload-pack')).slice(before.length);
      t.match(
        uploads,
        [
          { ref: 'refs/heads/main', sha: shas.tip, marketplace: 'acme' },
          { ref: `refs/snapshots/${shas.older}`, sha: shas.older, marketplace: 'acme' },
        ],
        'spec: "a want equal to the tip records refs/heads/main"; "a want that is not the tip records refs/snapshots/<sha>"',
      );
      t.equal(uploads.length, 2, 'one entry per fetch: the twice-wanted tip of a clone is one entry (decision 53)');
      for (const entry of uploads) {
        t.match(entry, {
          source: '127.0.0.1',
          principal: 'root',
          actorType: 'human',
          tokenId: s.token.id,
          credential_kind: 'pat',
        });
      }
      const refs = await facadeEntries(t, gw, api, 'info-refs');
      t.ok(refs.length > 0);
      t.match(refs.at(-1), {
        event: 'info-refs',
        ref: 'refs/heads/main',
        sha: shas.tip,
        source: '127.0.0.1',
        principal: 'root',
        tokenId: s.token.id,
        credential_kind: 'pat',
        marketplace: 'acme',
      });
      t.ok(
        refs.every((e) => e.source === '127.0.0.1' && e.credential_kind === 'pat' && e.tokenId !== null),
        'every info-refs entry has source, tokenId and credential_kind',
      );
    },
  );

  t.test(
    'spec, holdings check (POST /status/v1/snapshots): same credentials as the facade, 400 refuses the whole request, nothing on the ledger',
    async (t) => {
      const check = (body: unknown, headers: Record<string, string> = auth) =>
        gw.fetch('/status/v1/snapshots', {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        });
      const metric = async (state: string) => {
        const text = await (await gw.fetch('/actuator/prometheus', { headers: { 'x-dev-user': 'root' } })).text();
        return Number(
          new RegExp(`^gateway_holdings_answers_total\\{state="${state}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
        );
      };
      await settle(gw);
      const ledgerBefore = (await ledger(gw)).length;
      const approvedBefore = await metric('approved');
      const pairs = [
        { marketplace: 'acme', sha: shas.tip },
        { marketplace: 'acme', sha: shas.older },
        { marketplace: 'acme', sha: shas.unapproved },
        { marketplace: 'held', sha: shas.tip },
        { marketplace: 'gone', sha: shas.tip },
        { marketplace: 'nowhere', sha: shas.tip },
        { marketplace: 'acme', sha: 'f'.repeat(40) },
      ];
      const answer = await expectJson<{
        results: Array<{
          marketplace: string;
          sha: string;
          state: string;
          revokedAt: string | null;
          approvedOverReversedRevocation: boolean;
        }>;
      }>(t, await check({ holdings: pairs }), 200, 'a holdings check');
      t.strictSame(
        answer.results.map((r) => [r.marketplace, r.sha]),
        pairs.map((p) => [p.marketplace, p.sha]),
        'spec: "one result per pair, in request order", the pair echoed',
      );
      t.strictSame(
        answer.results.map((r) => r.state),
        ['approved', 'approved', 'unknown', 'unknown', 'revoked', 'unknown', 'unknown'],
        'spec: "approved ignores supersession"; never approved, nonexistent and unknown commits are unknown; a removal withdrawal is revoked',
      );
      t.match(answer.results[4], { state: 'revoked', revokedAt: /^\d{4}-/, approvedOverReversedRevocation: false });
      t.ok(
        answer.results.filter((r) => r.state !== 'revoked').every((r) => r.revokedAt === null),
        'revokedAt is null unless revoked',
      );
      t.ok(
        answer.results.every((r) => !('reason' in r)),
        'spec: "The withdrawal reason is not returned"',
      );
      const scoped = await expectJson<{ results: Array<{ state: string }> }>(
        t,
        await check({ holdings: pairs.slice(0, 1) }, { authorization: basic(s.scoped.token) }),
        200,
      );
      t.strictSame(
        scoped.results.map((r) => r.state),
        ['unknown'],
        "spec: a marketplace outside a scoped token's list is unknown",
      );
      const full = await expectJson<{ results: unknown[] }>(
        t,
        await check({ holdings: Array.from({ length: 256 }, () => pairs[0]) }),
        200,
        '256 pairs',
      );
      t.equal(full.results.length, 256, 'spec: "at most 256 pairs": 256 is accepted');

      const badRequests: Array<[string, unknown]> = [
        ['257 pairs', { holdings: Array.from({ length: 257 }, () => pairs[0]) }],
        ['holdings not an array', { holdings: pairs[0] }],
        ['no holdings', {}],
        ['a malformed name', { holdings: [pairs[0], { marketplace: 'Bad_Name', sha: shas.tip }] }],
        ['a 64-character name', { holdings: [{ marketplace: 'a'.repeat(64), sha: shas.tip }] }],
        ['an abbreviated sha', { holdings: [{ marketplace: 'acme', sha: shas.tip.slice(0, 39) }] }],
        ['a 41-character sha', { holdings: [{ marketplace: 'acme', sha: `${shas.tip}0` }] }],
        ['a sha that is not hex', { holdings: [{ marketplace: 'acme', sha: 'z'.repeat(40) }] }],
        ['a pair without a sha', { holdings: [{ marketplace: 'acme' }] }],
        ['a pair without a marketplace', { holdings: [{ sha: shas.tip }] }],
        ['a pair that is not an object', { holdings: [null] }],
      ];
      for (const [why, body] of badRequests)
        await expectProblem(t, await check(body), 400, 'invalid-holdings', `400 for ${why}`);

      const unauthenticated: Array<[string, Record<string, string>]> = [
        ['no credentials', {}],
        ['a garbage password', { authorization: basic('garbage') }],
        ['the development hatch header', { 'x-dev-user': 'root' }],
      ];
      for (const [why, headers] of unauthenticated) {
        const refused = await check({ holdings: pairs }, headers);
        t.equal(refused.status, 401, `401 for ${why}`);
        t.match(refused.headers.get('www-authenticate') ?? '', /^Basic /, `a Basic challenge for ${why}`);
      }
      t.equal((await check({ holdings: 'nonsense' }, {})).status, 401, 'credentials are checked before the body');

      t.equal((await ledger(gw)).length, ledgerBefore, 'spec: "Nothing is appended to the ledger for this call"');
      t.equal(
        await metric('approved'),
        approvedBefore + 2 + 256,
        'spec: "a counter tagged by answered state is kept instead"',
      );
    },
  );

  t.test('spec, Events: "The append is synchronous: a fetch fails if the ledger cannot be written"', async (t) => {
    const db = new pg.Client({ connectionString: gw.core.database.url });
    await db.connect();
    t.teardown(async () => {
      await db.query('drop trigger if exists refuse_access on es.events').catch(() => {});
      await db.end();
    });
    await db.query(`create or replace function refuse_access_for_test() returns trigger language plpgsql as $$
      begin raise exception 'ledger unavailable (test)'; end $$`);
    const client = gitClient(t, s.token.token);
    const url = `${gw.url}/git/acme`;
    const uploadsBefore = (await facadeEntries(t, gw, api, 'upload-pack')).length;
    const refsBefore = (await facadeEntries(t, gw, api, 'info-refs')).length;

    await db.query(`create trigger refuse_access before insert on es.events for each row
      when (new.stream_id like 'access-%') execute function refuse_access_for_test()`);
    const refs = await infoRefs(gw, 'acme', auth);
    t.not(refs.status, 200, `GET info/refs does not answer 200 when info-refs cannot be appended (got ${refs.status})`);
    t.notMatch(refs.body.toString(), /refs\/heads\/main/, 'and advertises nothing');
    const blocked = await client.clone(url);
    t.notOk(blocked.ok, 'a clone fails');

    // Only the upload-pack append fails: the advertisement works, the pack must not leave.
    await db.query('drop trigger refuse_access on es.events');
    await db.query(`create trigger refuse_access before insert on es.events for each row
      when (new.stream_id like 'access-%' and new.type = 'upload-pack') execute function refuse_access_for_test()`);
    t.equal((await infoRefs(gw, 'acme', auth)).status, 200, 'info/refs answers again');
    for (const version of [2, 0] as const) {
      const body = version === 2 ? v2Fetch([shas.tip]) : v0Request(shas.tip, [], true);
      const answer = await uploadPack(gw, 'acme', body, {
        ...auth,
        ...(version === 2 ? { 'git-protocol': 'version=2' } : {}),
      });
      t.notOk(
        answer.body.includes('PACK'),
        `v${version}: no pack byte leaves when upload-pack cannot be recorded (${answer.status} ${answer.error ?? ''})`,
      );
    }
    const noPack = await client.clone(url);
    t.notOk(noPack.ok, 'a clone fails when upload-pack cannot be recorded');
    t.equal((await facadeEntries(t, gw, api, 'upload-pack')).length, uploadsBefore, 'nothing was recorded');
    t.ok(
      (await facadeEntries(t, gw, api, 'info-refs')).length > refsBefore,
      'info-refs entries were recorded meanwhile (the trigger was selective)',
    );

    await db.query('drop trigger refuse_access on es.events');
    const works = await client.clone(url);
    t.ok(works.ok, `after dropping the trigger a clone works again: ${works.stderr}`);
    t.equal((await facadeEntries(t, gw, api, 'upload-pack')).length, uploadsBefore + 1, 'and is recorded');
  });
});
