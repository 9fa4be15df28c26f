import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { z } from 'zod';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import {
  assertNothingChanged,
  expectJson,
  expectProblem,
  hour,
  ledger,
  session,
  type Client,
} from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveRepos, serveUpstream, type Files } from '../../support/upstream.ts';
import { scratchDir } from '../../support/scratch.ts';

// docs/marketplaces.md (registration, ingest, states: approve and reject), the problem documents;
// Decisions 46 (order of refusals), 48 (manifest policy), 49 (release age).

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const unreachable = 'http://127.0.0.1:1/x.git';

type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  reason?: string;
  rootCause?: string;
  nextStep?: string;
  approvableAt?: string;
};
type Snapshot = {
  id: number;
  marketplaceId: number;
  sha: string;
  upstreamSha: string;
  state: string;
  violation: string | null;
  createdAt: string;
  ingestedBy: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
};
type Marketplace = {
  id: number;
  name: string;
  url: string | null;
  createdAt: string;
  registeredBy: string | null;
  forge: string;
  forgeProject: string;
  description: string;
  upstreamUpdatedAt: string | null;
  servedSha: string | null;
  lastIngestAt: string | null;
  lastIngestOutcome: 'succeeded' | 'failed' | null;
  lastIngestReason: string | null;
  syncMode: string;
  snapshots: Snapshot[];
  warnings?: string[];
};

/** A bare repository with one commit of `files` on main (none when `files` is null: an empty repository). */
async function bareRepo(root: string, name: string, files: Files | null): Promise<string> {
  const bare = join(root, `${name}.git`);
  await gitIn(root, 'init', '--bare', '--quiet', '--initial-branch=main', bare);
  if (files === null) return bare;
  const work = mkdtempSync(join(tmpdir(), 'gw-work-'));
  await gitIn(work, 'init', '--quiet', '--initial-branch=main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  await gitIn(work, 'add', '-A');
  await gitIn(work, 'commit', '--quiet', '-m', 'initial');
  await gitIn(work, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
  rmSync(work, { recursive: true, force: true });
  return bare;
}

const marketplaceRow = async (gw: TestGateway, name: string) =>
  JSON.parse(
    await gw.core.pool.oneFirst(sql.type(z.object({ j: z.string() }))`
  select row_to_json(x)::text as j from (select origin, url, push_policy from marketplaces where name = ${name} and removed_at is null) x`),
  ) as { origin: string; url: string | null; push_policy: string | null };

const listed = async (t: Test, api: Client) =>
  expectJson<Marketplace[]>(t, await api.get('/api/v1/marketplaces'), 200, 'GET /api/v1/marketplaces');
const one = async (t: Test, api: Client, name: string) => (await listed(t, api)).find((m) => m.name === name);

/** Refused with `status` (and problem `code`), leaving no event and no row behind. */
async function refused(
  t: Test,
  gw: TestGateway,
  send: () => Promise<Response>,
  status: number,
  code: string,
  message: string,
): Promise<Problem> {
  return assertNothingChanged(
    t,
    gw,
    async () => (await expectProblem(t, await send(), status, code, message)) as Problem,
    message,
  );
}

t.test(
  'registration refusals (400, 409, 422) record nothing, and the upstream is read only after every other check',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const dir = scratchDir(t, 'gw-repos-');
    await bareRepo(dir, 'counted', marketplaceFiles('counted', ['alpha']));
    const counted = await serveRepos(t, dir);
    const url = counted.url('counted');
    const register = (body: Record<string, unknown>) => () => root.post('/api/v1/marketplaces', body);
    t.equal(
      (await root.post('/api/v1/marketplaces', { name: 'taken', origin: 'hosted' })).status,
      201,
      'a live marketplace named taken',
    );

    // 400: URL scheme not allowlisted; url with userinfo; ref present and not main; hosted with a url;
    // upstream without one; pushPolicy on an upstream marketplace.
    const badRequests: Array<[string, Record<string, unknown>]> = [
      ['a disallowed scheme (ftp)', { name: 'acme', url: `ftp://127.0.0.1:${counted.port}/counted.git` }],
      ['a disallowed scheme (file)', { name: 'acme', url: `file://${dir}/counted.git` }],
      ['userinfo in the url', { name: 'acme', url: `http://user:secret@127.0.0.1:${counted.port}/counted.git` }],
      ['a user name alone in the url', { name: 'acme', url: `http://token@127.0.0.1:${counted.port}/counted.git` }],
      ['an unparsable url', { name: 'acme', url: 'not a url' }],
      ['ref present and not main', { name: 'acme', url, ref: 'develop' }],
      ['ref refs/heads/master', { name: 'acme', url, ref: 'refs/heads/master' }],
      ['hosted with a url', { name: 'acme', origin: 'hosted', url }],
      ['upstream without a url (origin defaults to upstream)', { name: 'acme' }],
      ['upstream without a url (explicit)', { name: 'acme', origin: 'upstream' }],
      ['pushPolicy on an upstream marketplace', { name: 'acme', url, pushPolicy: 'append-only' }],
      [
        'pushPolicy allow-rewrite on an upstream marketplace',
        { name: 'acme', url, origin: 'upstream', pushPolicy: 'allow-rewrite' },
      ],
    ];
    for (const [why, body] of badRequests)
      await refused(t, gw, register(body), 400, 'trust-boundary', `400 for ${why}`);

    // 409: a live marketplace has that name.
    const taken = await refused(
      t,
      gw,
      register({ name: 'taken', url }),
      409,
      'marketplace-name-taken',
      '409 for a live name',
    );
    t.match(taken.detail, /taken/);
    const catalogName = await refused(
      t,
      gw,
      register({ name: 'catalog', url }),
      409,
      'marketplace-name-taken',
      "409 for the virtual catalog's name",
    );
    t.match(catalogName.detail, /virtual catalog/);

    // 422: name fails ^[a-z0-9][a-z0-9_-]{0,62}$; Errors: the 422 "states that the name is the /git/<name> path clients
    // clone".
    for (const name of ['Acme', '-acme', '_acme', 'acme.git', 'has space', 'acme/evil', '', 'a'.repeat(64), 'ÿacme']) {
      const problem = await refused(
        t,
        gw,
        register({ name, url }),
        422,
        'invalid-name',
        `422 for the name ${JSON.stringify(name)}`,
      );
      t.match(
        problem.detail,
        /\/git\/<name>/,
        `the detail says the name is the /git/<name> path (${JSON.stringify(name)})`,
      );
    }
    t.equal(
      (await root.post('/api/v1/marketplaces', { name: 'a'.repeat(63), origin: 'hosted' })).status,
      201,
      '63 characters is the longest name',
    );
    const long = await assertNothingChanged(
      t,
      gw,
      async () => {
        const response = await root.post('/api/v1/marketplaces', { name: 'a'.repeat(250), url });
        return { status: response.status, body: (await response.json()) as Problem };
      },
      'a 250-character name',
    );
    t.equal(long.status, 422, 'a 250-character name is 422');
    t.match(
      long.body.type,
      /\/problems\/invalid-name$/,
      'spec, Errors: a name far beyond 63 characters is the same invalid-name 422',
    );
    t.match(long.body.detail, /\/git\/<name>/, 'and states that the name is the /git/<name> path');

    // 422: unknown origin or pushPolicy; decision 3: unknown fields are refused with 422.
    const origin = await refused(
      t,
      gw,
      register({ name: 'acme', url, origin: 'mirror' }),
      422,
      'invalid-request',
      '422 for an unknown origin',
    );
    t.match(origin.detail, /origin/);
    const policy = await refused(
      t,
      gw,
      register({ name: 'acme', origin: 'hosted', pushPolicy: 'force' }),
      422,
      'invalid-request',
      '422 for an unknown pushPolicy',
    );
    t.match(policy.detail, /pushPolicy/);
    const field = await refused(
      t,
      gw,
      register({ name: 'acme', url, branch: 'main' }),
      422,
      'invalid-request',
      '422 for an unknown body field',
    );
    t.match(field.detail, /branch/);
    await refused(t, gw, register({ url }), 422, 'invalid-request', '422 for a missing name');

    // Decision 46: 422, then 400, then 409; the upstream read comes after all of them.
    await refused(
      t,
      gw,
      register({ name: 'Bad_Name', url: 'ftp://example.test/a.git' }),
      422,
      'invalid-name',
      'an invalid name outranks a disallowed scheme',
    );
    await refused(
      t,
      gw,
      register({ name: 'taken', url: 'ftp://example.test/a.git' }),
      400,
      'trust-boundary',
      'a disallowed scheme outranks a live name',
    );
    await refused(
      t,
      gw,
      register({ name: 'taken', url: unreachable }),
      409,
      'marketplace-name-taken',
      'spec: "The upstream is read only after all other checks pass": a live name with an unreachable url is 409, not 502',
    );
    await refused(
      t,
      gw,
      register({ name: 'acme', url: 'http://user:pw@127.0.0.1:1/x.git' }),
      400,
      'trust-boundary',
      'userinfo with an unreachable url is 400, not 502',
    );
    await refused(
      t,
      gw,
      register({ name: 'acme', url: unreachable, ref: 'develop' }),
      400,
      'trust-boundary',
      'a non-main ref with an unreachable url is 400, not 502',
    );
    await refused(
      t,
      gw,
      register({ name: 'Acme', url: unreachable }),
      422,
      'invalid-name',
      'an invalid name with an unreachable url is 422, not 502',
    );
    await refused(
      t,
      gw,
      register({ name: 'acme', url: unreachable, origin: 'mirror' }),
      422,
      'invalid-request',
      'an unknown origin with an unreachable url is 422, not 502',
    );

    // Registering needs admin.
    await refused(
      t,
      gw,
      () => session(gw, 'mallory').post('/api/v1/marketplaces', { name: 'acme', url }),
      403,
      'forbidden',
      '403 for a non-admin',
    );

    t.equal(counted.hits(), 0, 'no refused registration read the upstream');
    const accepted = await expectJson<Marketplace>(
      t,
      await root.post('/api/v1/marketplaces', { name: 'acme', url, ref: 'main' }),
      201,
      'ref main is accepted',
    );
    t.ok(counted.hits() > 0, 'an accepted registration reads the upstream (the counter counts)');
    t.match(accepted, { name: 'acme', url, warnings: [] });
    t.equal(
      (await root.post('/api/v1/marketplaces', { name: 'acme-heads', url, ref: 'refs/heads/main' })).status,
      201,
      'decision 46: refs/heads/main is accepted',
    );
    t.strictSame(
      (await listed(t, root)).map((m) => m.name).sort(),
      ['a'.repeat(63), 'acme', 'acme-heads', 'taken'],
      'only the accepted registrations are listed',
    );

    // Last, because the bug lets it register.
    const hits = counted.hits();
    const sneaky = await root.post('/api/v1/marketplaces', {
      name: 'sneaky',
      url: `http://token\\@127.0.0.1:${counted.port}/counted.git`,
    });
    t.equal(
      sneaky.status,
      400,
      'spec: "url with userinfo" is 400, also when a backslash before @ hides it from the WHATWG parser',
    );
    t.equal(counted.hits(), hits, 'and the upstream is not read');

    // The WHATWG parser drops an empty userinfo, so `http://:@host/` once registered and was stored.
    const emptyUserinfo = await refused(
      t,
      gw,
      register({ name: 'blank-userinfo', url: `http://:@127.0.0.1:${counted.port}/counted.git` }),
      400,
      'trust-boundary',
      '400 for an empty userinfo (http://:@host/…)',
    );
    t.match(emptyUserinfo.detail, /user information/);
    t.equal(counted.hits(), hits, 'and the upstream is not read');
  },
);

t.test(
  '502 for an unreadable upstream or one with no default branch: reason, rootCause, nextStep; nothing registered',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const dir = scratchDir(t, 'gw-repos-');
    await bareRepo(dir, 'empty', null);
    await bareRepo(dir, 'full', marketplaceFiles('full', ['alpha']));
    const repos = await serveRepos(t, dir);

    const down = await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: unreachable }),
      502,
      'upstream-unreadable',
      '502 for an unreachable upstream',
    );
    t.match(
      down,
      { reason: /\S/, rootCause: /\S/, nextStep: /\S/ },
      'the problem carries reason, rootCause and nextStep',
    );
    t.match(down.rootCause, /127\.0\.0\.1|connect|refused/i, 'the root cause is the connection failure');
    t.match(down.detail, /\S/);

    const missing = await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: repos.url('nothing-here') }),
      502,
      'upstream-unreadable',
      '502 for a url that is not a repository',
    );
    t.match(missing, { reason: /\S/, rootCause: /\S/, nextStep: /\S/ });

    const empty = await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: repos.url('empty') }),
      502,
      'upstream-unreadable',
      '502 for an empty repository (no default branch)',
    );
    t.match(empty, { reason: /default branch/, rootCause: /\S/, nextStep: /\S/ });

    t.strictSame(await listed(t, root), [], 'nothing is registered');
    const ok = await expectJson<Marketplace>(
      t,
      await root.post('/api/v1/marketplaces', { name: 'acme', url: repos.url('full') }),
      201,
      'the name was not reserved by the failures',
    );
    t.equal(ok.name, 'acme');
  },
);

t.test(
  'gateway.allowed-url-schemes=https: an http upstream is 400; HTTPS:// passes the boundary (compared lower-cased)',
  async (t) => {
    const gw = await startTestGateway(t, { ...devEnv, GATEWAY_ALLOWED_URL_SCHEMES: 'https' });
    const root = session(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    const problem = await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }),
      400,
      'trust-boundary',
      'a readable http upstream',
    );
    t.match(problem.detail, /http/);
    // The boundary accepts it, so the answer is the upstream read's (502), not the boundary's 400.
    await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: 'HTTPS://127.0.0.1:1/x.git' }),
      502,
      'upstream-unreadable',
      'HTTPS:// in upper case',
    );
    await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'acme', url: 'https://127.0.0.1:1/x.git' }),
      502,
      'upstream-unreadable',
      'https://',
    );
  },
);

t.test(
  'warnings: "url already registered as <name>" per other marketplace with the same normalized URL; never refuses',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const dir = scratchDir(t, 'gw-repos-');
    await bareRepo(dir, 'acme', marketplaceFiles('acme', ['alpha']));
    await bareRepo(dir, 'other', marketplaceFiles('other', ['beta']));
    const { port } = await serveRepos(t, dir);
    const register = async (t: Test, name: string, url: string) => {
      const answer = await expectJson<Marketplace>(
        t,
        await root.post('/api/v1/marketplaces', { name, url }),
        201,
        `${name} (${url}) is registered`,
      );
      return [...(answer?.warnings ?? ['<no warnings array>'])].sort();
    };

    t.strictSame(
      await register(t, 'first', `http://localhost:${port}/acme.git`),
      [],
      'the first registration of a URL warns of nothing (the array is always present)',
    );
    t.strictSame(
      await register(t, 'slash', `http://localhost:${port}/acme.git/`),
      ['url already registered as first'],
      'a trailing slash',
    );
    t.strictSame(
      await register(t, 'bare', `http://localhost:${port}/acme`),
      ['url already registered as first', 'url already registered as slash'],
      'no .git suffix',
    );
    t.strictSame(
      await register(t, 'host', `http://LOCALHOST:${port}/acme.git`),
      ['url already registered as bare', 'url already registered as first', 'url already registered as slash'],
      'the host in upper case',
    );
    t.strictSame(
      await register(t, 'unrelated', `http://localhost:${port}/other.git`),
      [],
      'another repository on the same host',
    );
    t.strictSame(
      (
        await expectJson<Marketplace>(
          t,
          await root.post('/api/v1/marketplaces', { name: 'hosted', origin: 'hosted' }),
          201,
        )
      )?.warnings,
      [],
      'a hosted registration',
    );
    t.equal((await listed(t, root)).length, 6, 'every warned registration was registered');
    const scheme = await root.post('/api/v1/marketplaces', {
      name: 'scheme',
      url: `HTTP://localhost:${port}/acme.git`,
    });
    const schemeBody = (await scheme.json()) as Marketplace & Problem;
    t.equal(
      scheme.status,
      201,
      `the scheme in upper case is the same URL and is registered (${schemeBody.detail ?? ''})`,
    );
    t.strictSame(
      [...(schemeBody.warnings ?? [])].sort(),
      [
        'url already registered as bare',
        'url already registered as first',
        'url already registered as host',
        'url already registered as slash',
      ],
      'with a warning per other marketplace of that URL',
    );
  },
);

t.test('hosted registration: no url, pushPolicy defaults to append-only; allow-rewrite is kept', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const hosted = await expectJson<Marketplace>(
    t,
    await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted' }),
    201,
  );
  t.match(hosted, { name: 'team', url: null, warnings: [], servedSha: null, snapshots: [], registeredBy: 'root' });
  t.strictSame(
    await marketplaceRow(gw, 'team'),
    { origin: 'hosted', url: null, push_policy: 'append-only' },
    'spec: append-only (default)',
  );
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'rewrites', origin: 'hosted', pushPolicy: 'allow-rewrite' }),
    201,
  );
  t.strictSame(await marketplaceRow(gw, 'rewrites'), { origin: 'hosted', url: null, push_policy: 'allow-rewrite' });
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'explicit', origin: 'hosted', pushPolicy: 'append-only' }),
    201,
  );
  t.strictSame(await marketplaceRow(gw, 'explicit'), { origin: 'hosted', url: null, push_policy: 'append-only' });
  t.match(await ledger(gw, 'marketplace-registered'), [
    { marketplace: 'team', detail: 'origin=hosted', principal: 'root' },
    { marketplace: 'rewrites' },
    { marketplace: 'explicit' },
  ]);
  // Re-ingest: hosted marketplaces can be re-ingested through the same ingest endpoint; nothing pushed yet is a failed
  // ingest.
  const nothing = (await expectProblem(
    t,
    await root.post('/api/v1/marketplaces/team/ingest'),
    502,
    'ingest-failed',
    'ingest of a hosted marketplace nothing was pushed to',
  )) as Problem;
  t.match(nothing, { reason: /\S/, rootCause: /\S/, nextStep: /\/publish\/team/ });
  t.match(await one(t, root, 'team'), {
    lastIngestOutcome: 'failed',
    lastIngestReason: /publish\/team/,
    snapshots: [],
  });
});

t.test(
  'GET /api/v1/marketplaces: every field of the Marketplace and Snapshot resources; servedSha null until approval',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    const registered = await expectJson<Marketplace>(
      t,
      await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }),
      201,
    );
    const fields = [
      'id',
      'name',
      'url',
      'createdAt',
      'registeredBy',
      'forge',
      'forgeProject',
      'description',
      'upstreamUpdatedAt',
      'servedSha',
      'lastIngestAt',
      'lastIngestOutcome',
      'lastIngestReason',
      'syncMode',
      'snapshots',
    ];

    const before = await one(t, root, 'acme');
    for (const field of fields) t.ok(before !== undefined && field in before, `the listing has ${field}`);
    t.match(
      before,
      {
        id: registered.id,
        name: 'acme',
        url: upstream.url,
        createdAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/,
        registeredBy: 'root',
        forge: 'git',
        forgeProject: 'upstream',
        description: String,
        upstreamUpdatedAt: null,
        servedSha: null,
        lastIngestAt: null,
        lastIngestOutcome: null,
        lastIngestReason: null,
        syncMode: 'on-demand',
        snapshots: [],
      },
      'before the first ingest: lastIngest* null, forge "git" for a loopback URL',
    );

    const snapshot = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201, 'ingest');
    for (const field of [
      'id',
      'marketplaceId',
      'sha',
      'upstreamSha',
      'state',
      'violation',
      'createdAt',
      'ingestedBy',
      'decidedBy',
      'decidedAt',
    ]) {
      t.ok(field in snapshot, `the snapshot has ${field}`);
    }
    t.match(snapshot, {
      marketplaceId: registered.id,
      sha: /^[0-9a-f]{40}$/,
      state: 'held',
      violation: null,
      ingestedBy: 'root',
      decidedBy: null,
      decidedAt: null,
    });
    t.equal(snapshot.upstreamSha, snapshot.sha, 'no external sources: sha is the upstream commit');
    t.equal(
      snapshot.sha,
      await gitIn(upstream.bare, 'rev-parse', 'refs/heads/main'),
      'the upstream default branch tip',
    );

    const held = await one(t, root, 'acme');
    t.match(
      held,
      {
        servedSha: null,
        lastIngestOutcome: 'succeeded',
        lastIngestReason: null,
        lastIngestAt: /^\d{4}-/,
        upstreamUpdatedAt: /^\d{4}-/,
        description: 'acme test marketplace',
        snapshots: [{ id: snapshot.id, state: 'held' }],
      },
      'a held snapshot is not served',
    );

    await expectJson(t, await root.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, 'approve');
    const approved = await one(t, root, 'acme');
    t.equal(approved?.servedSha, snapshot.sha, 'servedSha is the approved commit');
    t.match(approved?.snapshots, [{ id: snapshot.id, state: 'approved', decidedBy: 'root', decidedAt: /^\d{4}-/ }]);

    const hosted = await expectJson<Marketplace>(
      t,
      await root.post('/api/v1/marketplaces', { name: 'team', origin: 'hosted' }),
      201,
    );
    for (const field of fields) t.ok(field in hosted, `a hosted marketplace has ${field}`);
    t.strictSame(
      (await listed(t, root)).map((m) => m.name),
      ['acme', 'team'],
      'every live marketplace',
    );
  },
);

t.test(
  'ingest: 404 unknown or removed, 403 for a non-approver; an approver granted through POST /api/v1/roles may ingest and approve',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const carol = session(gw, 'carol');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'other', url: upstream.url }), 201);
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'gone', url: upstream.url }), 201);
    await expectJson(
      t,
      await root.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }),
      200,
      'removed',
    );

    await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces/nowhere/ingest'),
      404,
      'marketplace-not-found',
      'an unknown marketplace',
    );
    await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces/gone/ingest'),
      404,
      'marketplace-not-found',
      'a removed marketplace',
    );
    await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces/Bad_Name/ingest'),
      404,
      'marketplace-not-found',
      'an invalid name',
    );
    await refused(t, gw, () => carol.post('/api/v1/marketplaces/acme/ingest'), 403, 'forbidden', 'a non-approver');

    await expectJson(
      t,
      await root.post('/api/v1/roles', { principal: 'carol', role: 'approver', marketplace: 'acme' }),
      201,
      'grant approver of acme',
    );
    const snapshot = await expectJson<Snapshot>(
      t,
      await carol.post('/api/v1/marketplaces/acme/ingest'),
      201,
      'the approver ingests',
    );
    t.match(snapshot, { state: 'held', ingestedBy: 'carol' });
    const approved = await expectJson<Snapshot>(
      t,
      await carol.post(`/api/v1/snapshots/${snapshot.id}/approve`),
      200,
      'the approver approves',
    );
    t.match(approved, { state: 'approved', decidedBy: 'carol' });
    await refused(
      t,
      gw,
      () => carol.post('/api/v1/marketplaces/other/ingest'),
      403,
      'forbidden',
      'approver of acme only: not of other',
    );
    const otherSnapshot = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/other/ingest'), 201);
    await refused(
      t,
      gw,
      () => carol.post(`/api/v1/snapshots/${otherSnapshot.id}/approve`),
      403,
      'forbidden',
      'approving in another marketplace',
    );
  },
);

t.test(
  'an upstream whose default branch is master: registered without ref, ingested and served as main; ref master is 400 saying so',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const dir = scratchDir(t, 'gw-repos-');
    const bare = await bareRepo(dir, 'legacy', marketplaceFiles('legacy', ['alpha']));
    await gitIn(dir, '-C', bare, 'branch', '-m', 'main', 'master');
    await gitIn(dir, '-C', bare, 'symbolic-ref', 'HEAD', 'refs/heads/master');
    const url = (await serveRepos(t, dir)).url('legacy');

    // Ref present and not main is 400; the message must not contradict what ingestion does.
    const refusal = await refused(
      t,
      gw,
      () => root.post('/api/v1/marketplaces', { name: 'legacy', url, ref: 'master' }),
      400,
      'trust-boundary',
      'ref master is 400',
    );
    t.match(
      refusal.detail,
      /ingests the upstream's default branch, whatever its name \(master too\), and serves it as main/,
      'the detail says master is ingested without a ref',
    );
    await expectJson(
      t,
      await root.post('/api/v1/marketplaces', { name: 'legacy', url }),
      201,
      'spec: "the gateway reads the upstream default branch": registered without ref',
    );
    const snapshot = await expectJson<Snapshot>(
      t,
      await root.post('/api/v1/marketplaces/legacy/ingest'),
      201,
      'ingested from master',
    );
    t.equal(
      snapshot.upstreamSha,
      await gitIn(dir, '-C', bare, 'rev-parse', 'refs/heads/master'),
      'the snapshot is the tip of master',
    );
    await expectJson(t, await root.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, 'approved');
    t.equal((await one(t, root, 'legacy'))?.servedSha, snapshot.sha, 'and served (as main)');
  },
);

t.test(
  'a failed ingest answers 502 and records the attempt: lastIngestOutcome failed, a one-line reason, an ingest-failed entry',
  async (t) => {
    const gw = await startTestGateway(t, devEnv);
    const root = session(gw, 'root');
    const dir = scratchDir(t, 'gw-repos-');
    await bareRepo(dir, 'acme', marketplaceFiles('acme', ['alpha']));
    const repos = await serveRepos(t, dir);
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: repos.url('acme') }), 201);
    const first = await expectJson<Snapshot>(
      t,
      await root.post('/api/v1/marketplaces/acme/ingest'),
      201,
      'a first ingest succeeds',
    );
    const succeeded = await one(t, root, 'acme');
    t.equal(succeeded?.lastIngestOutcome, 'succeeded');

    await repos.close(); // the upstream goes away after registration
    const response = await root.post('/api/v1/marketplaces/acme/ingest');
    const problem = (await expectProblem(t, response, 502, 'ingest-failed', 'ingest of a stopped upstream')) as Problem;
    t.match(problem, { reason: /\S/, rootCause: /\S/, nextStep: /\S/ }, 'reason, rootCause, nextStep');

    const failed = await one(t, root, 'acme');
    t.equal(failed?.lastIngestOutcome, 'failed', 'spec: lastIngestOutcome "describes the last attempt"');
    t.ok(
      failed?.lastIngestAt !== null && Date.parse(failed!.lastIngestAt!) >= Date.parse(succeeded!.lastIngestAt!),
      'lastIngestAt is the failed attempt',
    );
    const reason = failed?.lastIngestReason ?? '';
    t.notMatch(reason, /[\r\n]/, 'spec: "reason, root cause and next step on one line"');
    t.ok(reason.includes(problem.reason!), `the reason is in it: ${reason}`);
    t.ok(reason.includes(problem.rootCause!.replace(/\s*\n\s*/g, ' ')), 'the root cause is in it');
    t.ok(reason.includes(problem.nextStep!), 'the next step is in it');
    t.strictSame(
      failed?.snapshots.map((s) => s.id),
      [first.id],
      'no snapshot was captured',
    );
    const entries = await ledger(gw, 'ingest-failed');
    t.equal(entries.length, 1, 'one ingest-failed entry');
    t.match(entries[0], { marketplace: 'acme', principal: 'root', source: 'admin' });
    t.ok(
      entries[0]?.detail?.includes(problem.rootCause!) && entries[0].detail.includes(problem.nextStep!),
      `detail is reason, root cause, next step: ${entries[0]?.detail}`,
    );

    // The other way an upstream goes away: the repository is deleted behind a live server.
    const upstream = await serveUpstream(t, marketplaceFiles('beta', ['alpha']), 'beta');
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'beta', url: upstream.url }), 201);
    rmSync(upstream.bare, { recursive: true, force: true });
    const deleted = (await expectProblem(
      t,
      await root.post('/api/v1/marketplaces/beta/ingest'),
      502,
      'ingest-failed',
      'ingest of a deleted repository',
    )) as Problem;
    t.match(deleted, { reason: /\S/, rootCause: /\S/, nextStep: /\S/ });
    t.match(await one(t, root, 'beta'), {
      lastIngestOutcome: 'failed',
      lastIngestAt: /^\d{4}-/,
      lastIngestReason: /\S/,
      snapshots: [],
    });
    t.equal((await ledger(gw, 'ingest-failed')).length, 2);
  },
);

t.test('a manifest violation is a succeeded ingest of a rejected snapshot carrying the violation', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      owner: { name: 'x' },
      plugins: [{ name: 'escape', source: '../escape' }],
    }),
  });
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const snapshot = await expectJson<Snapshot>(
    t,
    await root.post('/api/v1/marketplaces/acme/ingest'),
    201,
    'spec: "A manifest rejected by policy counts as a succeeded ingest"',
  );
  t.match(snapshot, { state: 'rejected', violation: /\.\.\/escape/ });
  t.match(await one(t, root, 'acme'), {
    lastIngestOutcome: 'succeeded',
    lastIngestReason: null,
    servedSha: null,
    snapshots: [{ state: 'rejected' }],
  });
  t.equal((await ledger(gw, 'ingest-failed')).length, 0, 'no ingest-failed entry');
  t.match(await ledger(gw, 'snapshot-captured'), [{ detail: /rejected: .*\.\.\/escape/ }]);
  const again = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201);
  t.equal(again.id, snapshot.id, 'the captured commit is not captured twice');
});

t.test('approve and reject refusals record nothing', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');
  const mallory = session(gw, 'mallory');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const ingest = async () => expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201);
  const first = await ingest();
  await upstream.commit({ 'README.md': 'two\n' });
  const second = await ingest();
  await upstream.commit({ 'README.md': 'three\n' });
  const third = await ingest();

  await refused(
    t,
    gw,
    () => mallory.post(`/api/v1/snapshots/${first.id}/approve`),
    403,
    'forbidden',
    'a non-approver approving',
  );
  await refused(
    t,
    gw,
    () => mallory.post(`/api/v1/snapshots/${first.id}/reject`),
    403,
    'forbidden',
    'a non-approver rejecting',
  );
  await refused(
    t,
    gw,
    () => root.post('/api/v1/snapshots/424242/approve'),
    404,
    'snapshot-not-found',
    'approving an unknown snapshot',
  );
  await refused(
    t,
    gw,
    () => root.post('/api/v1/snapshots/424242/reject'),
    404,
    'snapshot-not-found',
    'rejecting an unknown snapshot',
  );

  t.match(await expectJson(t, await root.post(`/api/v1/snapshots/${first.id}/approve`), 200), { state: 'approved' });
  await refused(
    t,
    gw,
    () => root.post(`/api/v1/snapshots/${first.id}/approve`),
    409,
    'snapshot-already-decided',
    'spec: "Approve on an already approved snapshot answers 409"',
  );
  await refused(
    t,
    gw,
    () => root.post(`/api/v1/snapshots/${first.id}/reject`),
    409,
    'snapshot-already-decided',
    'rejecting an approved snapshot',
  );

  t.match(await expectJson(t, await root.post(`/api/v1/snapshots/${second.id}/reject`), 200), {
    state: 'rejected',
    decidedBy: 'root',
  });
  await refused(
    t,
    gw,
    () => root.post(`/api/v1/snapshots/${second.id}/approve`),
    409,
    'snapshot-already-decided',
    'spec: rejected → approve is 409',
  );
  await refused(
    t,
    gw,
    () => root.post(`/api/v1/snapshots/${second.id}/reject`),
    409,
    'snapshot-already-decided',
    'rejecting a rejected snapshot',
  );

  t.match(await one(t, root, 'acme'), { servedSha: first.sha }, 'the refusals changed nothing served');
  t.match(
    await expectJson(t, await root.post(`/api/v1/snapshots/${third.id}/approve`), 200),
    { state: 'approved' },
    'a held snapshot is still approvable',
  );
  t.match(await one(t, root, 'acme'), { servedSha: third.sha });
});

t.test(
  'gateway.vetting.minimum-release-age=1h: approve is 409 release-age-not-elapsed with approvableAt; reject is not age-gated',
  async (t) => {
    const gw = await startTestGateway(t, { ...devEnv, GATEWAY_VETTING_MINIMUM_RELEASE_AGE: '1h' });
    const root = session(gw, 'root');
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
    const snapshot = await expectJson<Snapshot>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201);
    const problem = await refused(
      t,
      gw,
      () => root.post(`/api/v1/snapshots/${snapshot.id}/approve`),
      409,
      'release-age-not-elapsed',
      'approving within the minimum release age',
    );
    t.match(problem.approvableAt, /^\d{4}-\d\d-\d\dT/, 'approvableAt is a timestamp');
    t.ok(
      Math.abs(Date.parse(problem.approvableAt!) - (Date.parse(snapshot.createdAt) + hour)) < 2000,
      `decision 49: measured from capture (${snapshot.createdAt} + 1h ≈ ${problem.approvableAt})`,
    );
    t.match(await one(t, root, 'acme'), { servedSha: null, snapshots: [{ state: 'held' }] });
    t.match(
      await expectJson(
        t,
        await root.post(`/api/v1/snapshots/${snapshot.id}/reject`),
        200,
        'spec: reject is "never age-gated"',
      ),
      { state: 'rejected' },
    );
  },
);
