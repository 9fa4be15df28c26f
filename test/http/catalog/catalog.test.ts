// The virtual catalog served at /git/<gateway.catalog.name>.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import {
  assertNothingChanged,
  eventually,
  expectJson,
  expectProblem,
  ledger,
  machine,
  session,
  settle,
  sleep,
  tokenRow,
  type Client,
} from '../../support/assert.ts';
import { startOnConfig, startTestGateway, testConfig, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles } from '../../support/upstream.ts';
import { approveMarketplace, filesWith, type Revision } from './support.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const skill = (plugin: string) => marketplaceFiles('x', [plugin])[`plugins/${plugin}/skills/${plugin}-skill/SKILL.md`]!;
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

type Manifest = {
  name: string;
  owner: { name: string };
  plugins: Array<{ name: string; source: string; description?: string }>;
};

async function token(t: Test, client: Client, body: Record<string, unknown>): Promise<string> {
  return (
    await expectJson<{ token: string }>(
      t,
      await client.post('/api/v1/tokens', body),
      201,
      `token ${JSON.stringify(body)}`,
    )
  ).token;
}

async function revision(t: Test, client: Client): Promise<Revision> {
  return expectJson<Revision>(t, await client.get('/api/v1/catalog'), 200, 'GET /api/v1/catalog');
}

/** The revoking event as re-vetting appends it (ENFORCE), so publication and the catalog must follow. */
async function revoke(
  gw: TestGateway,
  snapshot: { id: number; marketplaceId: number; sha: string; name: string },
): Promise<void> {
  const at = new Date().toISOString();
  await gw.core.store.append(
    `marketplace-${snapshot.marketplaceId}`,
    [
      {
        type: 'snapshot-revoked',
        data: {
          snapshotId: snapshot.id,
          marketplaceId: snapshot.marketplaceId,
          marketplace: snapshot.name,
          sha: snapshot.sha,
          reason: 'secret found',
          administrative: false,
          revokedAt: at,
          revokedBy: 'revet-policy',
        },
        metadata: { principal: 'revet-policy', actorType: 'system', correlationId: 'revet', at },
      },
    ],
    'any',
  );
  await gw.settled();
}

t.test(
  'approvals in two marketplaces: one clone of the catalog holds both, a contested name is withheld, revocation and removal rebuild it',
  async (t) => {
    const gw = await startTestGateway(t, env);
    const root = session(gw, 'root');
    const alice = session(gw, 'alice');

    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.get('/api/v1/catalog'), 404, 'catalog-not-found'),
      'GET before anything is served',
    );
    await assertNothingChanged(
      t,
      gw,
      async () => expectProblem(t, await root.post('/api/v1/catalog/rebuild'), 404, 'catalog-not-found'),
      'POST rebuild with nothing served',
    );

    const acme = await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha', 'shared']));
    const first = await revision(t, root);
    t.strictSame(first.constituents, [{ marketplace: 'acme', sha: acme.sha }], 'rebuilt after the approval');
    t.strictSame(first.collisions, []);

    const studio = await approveMarketplace(t, root, 'studio', filesWith('studio', ['gamma', 'shared'], 'rooted'));
    const second = await revision(t, root);
    t.not(second.sha, first.sha);
    t.strictSame(
      second.constituents,
      [
        { marketplace: 'acme', sha: acme.sha },
        { marketplace: 'studio', sha: studio.sha },
      ],
      'constituents in name order',
    );
    t.strictSame(
      second.collisions,
      [{ name: 'shared', marketplaces: ['acme', 'studio'] }],
      'the contested name, claimants in name order',
    );
    t.ok(Date.parse(second.generatedAt) >= Date.parse(first.generatedAt));

    t.test(
      'the ledger: catalog-rebuilt per revision, one catalog-name-collision per withheld name (principal catalog-builder)',
      async (t) => {
        const rebuilt = await ledger(gw, 'catalog-rebuilt');
        t.equal(rebuilt.length, 2);
        t.match(rebuilt, [
          {
            principal: 'catalog-builder',
            actor_type: 'system',
            marketplace: 'catalog',
            marketplace_id: null,
            detail: `sha=${first.sha} constituents=1 collisions=0 plugins=2; trigger=reactor`,
          },
          {
            principal: 'catalog-builder',
            actor_type: 'system',
            marketplace: 'catalog',
            detail: `sha=${second.sha} constituents=2 collisions=1 plugins=3; trigger=reactor`,
          },
        ]);
        const collisions = await ledger(gw, 'catalog-name-collision');
        t.equal(collisions.length, 1);
        t.match(collisions[0], {
          principal: 'catalog-builder',
          actor_type: 'system',
          marketplace: 'catalog',
          detail: "plugin 'shared' claimed by acme, studio: withheld from the catalog",
        });
      },
    );

    const unscoped = await token(t, alice, { name: 'everything' });
    const client = gitClient(t, unscoped);
    const url = `${gw.url}/git/catalog`;

    t.test(
      "one clone with one credential: every uncontested plugin's tree and a marketplace.json listing them",
      async (t) => {
        for (const protocol of [2, 0] as const) {
          const clone = await client.clone(`${url}.git`, { protocol });
          t.ok(clone.ok, `protocol v${protocol}: ${clone.stderr}`);
          t.equal(
            (await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout,
            second.sha,
            'HEAD is the revision GET /api/v1/catalog answers',
          );
          const manifest = JSON.parse(read(clone.dir, '.claude-plugin/marketplace.json')) as Manifest;
          t.equal(manifest.name, 'catalog');
          t.strictSame(
            manifest.plugins.map((p) => [p.name, p.source]),
            [
              ['alpha', './plugins/acme/alpha'],
              ['gamma', './plugins/studio/gamma'],
              ['rooted', './plugins/studio/rooted'],
            ],
            'every plugin of every served marketplace but the contested one, sources rewritten',
          );
          t.equal(manifest.plugins[0]!.description, 'the alpha plugin', 'the other entry fields are kept');
          t.equal(read(clone.dir, 'plugins/acme/alpha/skills/alpha-skill/SKILL.md'), skill('alpha'));
          t.equal(read(clone.dir, 'plugins/studio/gamma/skills/gamma-skill/SKILL.md'), skill('gamma'));
          t.ok(existsSync(join(clone.dir, 'plugins/acme/alpha/.claude-plugin/plugin.json')));
          t.ok(
            existsSync(join(clone.dir, 'plugins/studio/rooted/skills/rooted-skill/SKILL.md')),
            'a plugin at its marketplace\'s root ("./") is placed whole',
          );
          t.notOk(
            existsSync(join(clone.dir, 'plugins/acme/shared')),
            'the contested name is published for no claimant',
          );
          t.notOk(existsSync(join(clone.dir, 'plugins/studio/shared')));
          const record = JSON.parse(read(clone.dir, '.claude-plugin/gateway-catalog.json')) as Revision;
          t.match(
            record,
            {
              catalog: 'catalog',
              generatedAt: second.generatedAt,
              constituents: second.constituents,
              collisions: second.collisions,
            },
            'constituents and collisions are recorded in the catalog commit itself',
          );
          t.equal(
            (await client.run(['rev-list', '--count', 'HEAD'], clone.dir)).stdout,
            '1',
            'a root commit: nothing earlier is reachable',
          );
          const message = (await client.run(['log', '-1', '--format=%B'], clone.dir)).stdout;
          t.match(
            message,
            new RegExp(`acme ${acme.sha}[\\s\\S]*studio ${studio.sha}[\\s\\S]*shared: acme, studio`),
            'and in its message',
          );
        }
        const refs = (await client.run(['ls-remote', url])).stdout
          .split('\n')
          .map((line) => line.split('\t')[1])
          .sort();
        t.strictSame(refs, ['HEAD', 'refs/heads/main'], 'spec, Facade rule 2: nothing else on the wire');
        const push = await client.run(['push', url, 'HEAD:refs/heads/main'], (await client.clone(url)).dir);
        t.notOk(push.ok, 'spec, Facade rule 4: receive-pack is disabled for the catalog too');
      },
    );

    t.test("fetches are on the ledger under the catalog's own name (adoption counts it so)", async (t) => {
      const uploads = (await ledger(gw, 'upload-pack')).filter((e) => e.marketplace === 'catalog');
      t.ok(uploads.length >= 2);
      t.ok(
        uploads.every(
          (e) =>
            e.marketplace_id === null &&
            e.principal === 'alice' &&
            e.actor_type === 'human' &&
            e.source === '127.0.0.1' &&
            e.token_id !== null,
        ),
      );
      const infoRefs = (await ledger(gw, 'info-refs')).filter((e) => e.marketplace === 'catalog');
      t.ok(infoRefs.length >= 2);
    });

    t.test(
      'scopes: a token must name the catalog to fetch it (spec, Tokens rule 1: the catalog name is valid)',
      async (t) => {
        const acmeOnly = gitClient(t, await token(t, alice, { name: 'acme only', scopes: ['acme'] }));
        t.ok((await acmeOnly.clone(`${gw.url}/git/acme`)).ok, 'in scope');
        const refused = await assertNothingChanged(
          t,
          gw,
          () => acmeOnly.clone(url),
          'a token scoped to acme fetching the catalog',
        );
        t.notOk(refused.ok);
        t.match(refused.stderr, /not found/, 'answered as a nonexistent repository');
        const catalogOnly = gitClient(t, await token(t, alice, { name: 'catalog only', scopes: ['catalog'] }));
        t.ok((await catalogOnly.clone(url)).ok, 'a token scoped to the catalog fetches it');
        t.notOk((await catalogOnly.clone(`${gw.url}/git/acme`)).ok, 'and nothing else');
      },
    );

    t.test('GET /api/v1/catalog for a machine credential with marketplaces:read', async (t) => {
      const credential = await expectJson<{ id: number; token: string }>(
        t,
        await root.post('/api/v1/tokens/machine', {
          principal: 'ci-bot',
          name: 'catalog reader',
          apiScopes: ['marketplaces:read'],
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        }),
        201,
      );
      t.strictSame(await expectJson(t, await machine(gw, credential.token).get('/api/v1/catalog'), 200), second);
      // lastUsedAt is written off the request path: let it land before the next refusal compares states.
      await eventually(async () => (await tokenRow(gw, credential.id))?.last_used_at);
    });

    let third: Revision;
    t.test('POST /api/v1/catalog/rebuild (admin): a new revision, recorded as catalog-rebuilt', async (t) => {
      await assertNothingChanged(
        t,
        gw,
        async () => expectProblem(t, await alice.post('/api/v1/catalog/rebuild'), 403, 'forbidden'),
        'a non-admin rebuilding',
      );
      third = await expectJson<Revision>(t, await root.post('/api/v1/catalog/rebuild'), 200, 'rebuild');
      t.not(third.sha, second.sha, 'a new revision');
      t.strictSame(
        [third.constituents, third.collisions],
        [second.constituents, second.collisions],
        'of the same estate',
      );
      t.strictSame(await revision(t, root), third, 'served and answered by GET');
      const rebuilt = (await ledger(gw, 'catalog-rebuilt')).at(-1);
      t.match(
        rebuilt,
        {
          principal: 'root',
          actor_type: 'human',
          marketplace: 'catalog',
          detail: `sha=${third.sha} constituents=2 collisions=1 plugins=3; trigger=api`,
        },
        'visible on the ledger when the answer arrives',
      );
      t.equal((await ledger(gw, 'catalog-name-collision')).length, 1, 'a name still withheld is not recorded again');
      const clone = await client.clone(url);
      t.equal((await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout, third.sha);
    });

    t.test('revoking a served snapshot rebuilds the catalog without its content', async (t) => {
      await revoke(gw, studio);
      const fourth = await revision(t, root);
      t.strictSame(fourth.constituents, [{ marketplace: 'acme', sha: acme.sha }], 'studio serves nothing any more');
      t.strictSame(fourth.collisions, [], 'shared is no longer contested');
      const clone = await client.clone(url);
      t.ok(clone.ok, clone.stderr);
      const manifest = JSON.parse(read(clone.dir, '.claude-plugin/marketplace.json')) as Manifest;
      t.strictSame(
        manifest.plugins.map((p) => p.name),
        ['alpha', 'shared'],
        "acme's shared is published now that nobody else claims it",
      );
      t.notOk(existsSync(join(clone.dir, 'plugins/studio')), 'nothing of the revoked snapshot');
      t.match((await ledger(gw, 'catalog-rebuilt')).at(-1), {
        principal: 'catalog-builder',
        detail: `sha=${fourth.sha} constituents=1 collisions=0 plugins=2; trigger=reactor`,
      });

      const served = gw.core.catalog!.servedRepo;
      const gammaSkill = (await git(['hash-object', '--stdin'], { input: skill('gamma') })).toString().trim();
      await eventually(
        async () =>
          !(await git(['-C', served, 'cat-file', '-e', gammaSkill]).then(
            () => true,
            () => false,
          )),
        10_000,
      );
      t.pass('the revoked content is pruned from the served catalog repository');
      const fresh = join(client.home, 'fresh');
      await client.run(['init', '--quiet', fresh]);
      const fetched = await client.run(['-c', 'protocol.version=2', 'fetch', url, third.sha], fresh);
      t.notOk(fetched.ok, 'an earlier revision cannot be fetched by id');
    });

    t.test('removing the last served marketplace withdraws the catalog', async (t) => {
      await expectJson(
        t,
        await root.request('DELETE', '/api/v1/marketplaces/acme', { reason: 'retired' }),
        200,
        'remove acme',
      );
      await expectProblem(t, await root.get('/api/v1/catalog'), 404, 'catalog-not-found');
      const clone = await client.clone(url);
      t.notOk(clone.ok, 'nothing is served at /git/catalog');
      t.match(clone.stderr, /not found/);
      t.match(
        (await ledger(gw, 'catalog-rebuilt')).at(-1),
        {
          principal: 'catalog-builder',
          marketplace: 'catalog',
          detail: 'withdrawn: no marketplace is served; trigger=reactor',
        },
        'recorded by the time the removal answers',
      );
      await assertNothingChanged(
        t,
        gw,
        async () => expectProblem(t, await root.post('/api/v1/catalog/rebuild'), 404, 'catalog-not-found'),
        'POST rebuild with nothing served',
      );
    });
  },
);

t.test('GATEWAY_CATALOG_ENABLED=false: both endpoints 404 and /git/<catalog name> is no repository', async (t) => {
  const gw = await startTestGateway(t, { ...env, GATEWAY_CATALOG_ENABLED: 'false' });
  const root = session(gw, 'root');
  await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
  const client = gitClient(t, await token(t, root, { name: 'all' }));
  t.ok((await client.clone(`${gw.url}/git/acme`)).ok, 'the marketplace itself is served');
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await root.get('/api/v1/catalog'), 404, 'catalog-not-found'),
    'GET when disabled',
  );
  await assertNothingChanged(
    t,
    gw,
    async () => expectProblem(t, await root.post('/api/v1/catalog/rebuild'), 404, 'catalog-not-found'),
    'POST when disabled',
  );
  const clone = await assertNothingChanged(
    t,
    gw,
    () => client.clone(`${gw.url}/git/catalog`),
    'cloning the catalog when disabled',
  );
  t.notOk(clone.ok);
  t.match(clone.stderr, /not found/);
  await expectProblem(t, await root.post('/api/v1/tokens', { name: 'x', scopes: ['catalog'] }), 422, 'unknown-scope');
  t.strictSame(await ledger(gw, 'catalog-rebuilt'), [], 'nothing built');
});

t.test('gateway.catalog.name: the catalog is served, listed and recorded under the configured name', async (t) => {
  const gw = await startTestGateway(t, { ...env, GATEWAY_CATALOG_NAME: 'everything' });
  const root = session(gw, 'root');
  await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
  const client = gitClient(t, await token(t, root, { name: 'scoped', scopes: ['everything'] }));
  const clone = await client.clone(`${gw.url}/git/everything.git`);
  t.ok(clone.ok, clone.stderr);
  t.equal((JSON.parse(read(clone.dir, '.claude-plugin/marketplace.json')) as Manifest).name, 'everything');
  t.notOk((await client.clone(`${gw.url}/git/catalog`)).ok, 'nothing under the default name');
  t.match(await ledger(gw, 'catalog-rebuilt'), [{ marketplace: 'everything' }]);
  t.ok((await ledger(gw, 'upload-pack')).some((e) => e.marketplace === 'everything'));
});

t.test(
  "the leader's first pass: a served catalog that is current is left alone; a lost one is rebuilt (trigger=startup)",
  async (t) => {
    const config = await testConfig(t, env);
    const start = () => startOnConfig(config);
    let gw = await start();
    let root = session(gw, 'root');
    await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
    const built = await revision(t, root);
    await gw.close();

    gw = await start();
    root = session(gw, 'root');
    await sleep(500);
    await settle(gw);
    t.strictSame(await revision(t, root), built, 'the same revision after a restart');
    t.equal((await ledger(gw, 'catalog-rebuilt')).length, 1, 'nothing rebuilt or recorded');
    const served = gw.core.catalog!.servedRepo;
    await gw.close();

    rmSync(served, { recursive: true, force: true });
    gw = await start();
    t.teardown(() => gw.close());
    root = session(gw, 'root');
    const rebuilt = await eventually(async () => {
      const answer = await root.get('/api/v1/catalog');
      return answer.status === 200 ? ((await answer.json()) as Revision) : null;
    }, 10_000);
    t.strictSame(rebuilt.constituents, built.constituents);
    t.not(rebuilt.sha, built.sha);
    t.match(await eventually(async () => (await ledger(gw, 'catalog-rebuilt'))[1], 5000), {
      principal: 'catalog-builder',
      detail: `sha=${rebuilt.sha} constituents=1 collisions=0 plugins=1; trigger=startup`,
    });
  },
);
