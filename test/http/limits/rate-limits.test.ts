import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../../src/adapters/config/load.ts';
import { eventually, expectJson, expectProblem, session } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Per-credential and per-address rate limits on the API and the facade
// (@fastify/rate-limit, configurable, 429 with Retry-After as a problem document on the API and a
// plain-text git message on the facade), so one runaway client cannot starve the rest.
//
// Every gateway here trusts X-Forwarded-For from loopback (gateway.server.trusted-proxies), so that the
// test, like a load balancer, can speak for several client addresses.

const window = '3s';
const limited = (budgets: Record<string, string>) => ({
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_SERVER_TRUSTED_PROXIES: 'loopback',
  GATEWAY_RATE_LIMIT_WINDOW: window,
  ...budgets,
});
const from = (address: string) => ({ 'x-forwarded-for': address });
const dev = (user: string, address: string) => ({ 'x-dev-user': user, ...from(address) });

/**
 * Sends `request` until it is answered 429 (at most `limit` times): the answers served before the first
 * 429, and that 429. Counting up to the refusal, rather than asserting the n-th answer, keeps the test
 * right even when a window happens to end in the middle of the burst.
 */
async function untilRefused(request: () => Promise<Response>, limit = 60) {
  let served = 0;
  for (let i = 0; i < limit; i++) {
    const response = await request();
    if (response.status === 429) return { served, refused: response };
    await response.arrayBuffer();
    served++;
  }
  throw new Error(`no 429 within ${limit} requests`);
}

const retryAfterOf = (t: Test, response: Response) => {
  const value = Number(response.headers.get('retry-after'));
  t.ok(Number.isInteger(value) && value >= 1 && value <= 3, `Retry-After is whole seconds within the window: ${value}`);
};

t.test('the management API: a runaway credential or address gets 429, the others are served', async (t) => {
  const gw = await startTestGateway(
    t,
    limited({ GATEWAY_RATE_LIMIT_API_PER_CREDENTIAL: '5', GATEWAY_RATE_LIMIT_API_PER_ADDRESS: '20' }),
  );
  const root = session(gw, 'root');
  const bot = await expectJson<{ token: string }>(
    t,
    await root.post('/api/v1/tokens/machine', {
      principal: 'ci-bot',
      name: 'runaway',
      apiScopes: ['marketplaces:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    }),
    201,
    'provision a machine credential',
  );
  const machineGet = () =>
    gw.fetch('/api/v1/marketplaces', { headers: { authorization: `Bearer ${bot.token}`, ...from('198.51.100.1') } });

  await t.test('a machine credential over its budget: 429 problem rate-limited with Retry-After', async (t) => {
    const { served, refused } = await untilRefused(machineGet);
    t.ok(served >= 5, `the budget of 5 was served first (${served})`);
    const problem = await expectProblem(t, refused, 429, 'rate-limited', 'the runaway credential');
    t.match(problem.detail, /too many requests with this credential to the management API: the budget is 5 per 3/);
    t.equal(problem.instance, '/api/v1/marketplaces');
    retryAfterOf(t, refused);
    // At the same time: another credential from the same address, and anyone from another address.
    await expectJson(t, await gw.fetch('/api/v1/me', { headers: dev('alice', '198.51.100.1') }), 200, 'alice');
    await expectJson(t, await gw.fetch('/api/v1/me', { headers: dev('bob', '198.51.100.9') }), 200, 'bob');
    t.equal((await gw.fetch('/actuator/health', { headers: from('198.51.100.1') })).status, 200, 'health');
  });

  await t.test('an address over its budget, whatever credentials it shows: 429 before authentication', async (t) => {
    let n = 0;
    // A new principal each time, so that only the address budget (20) can run out; bad ones count too.
    const { served, refused } = await untilRefused(() =>
      gw.fetch('/api/v1/me', { headers: n++ % 2 ? dev(`user-${n}`, '203.0.113.5') : from('203.0.113.5') }),
    );
    t.ok(served >= 20, `the address budget of 20 was served first (${served})`);
    const problem = await expectProblem(t, refused, 429, 'rate-limited', 'the runaway address');
    t.match(problem.detail, /too many requests from this address to the management API/);
    retryAfterOf(t, refused);
    await expectJson(t, await gw.fetch('/api/v1/me', { headers: dev('carol', '203.0.113.6') }), 200, 'another address');
    for (let i = 0; i < 25; i++) {
      const health = await gw.fetch('/actuator/health', { headers: from('203.0.113.5') });
      if (health.status !== 200) t.fail(`/actuator/health answered ${health.status}: never limited`);
    }
    t.pass('/actuator/health is never limited');
  });

  await t.test('the budget refills after the window', async (t) => {
    const response = await eventually(
      async () => {
        const answer = await machineGet();
        return answer.status === 200 ? answer : null;
      },
      15_000,
      250,
    );
    await expectJson(t, response, 200, 'the runaway credential is served again');
  });
});

async function servedMarketplace(t: Test, gw: TestGateway) {
  const root = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  await expectJson(t, await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const snapshot = await expectJson<{ id: number }>(t, await root.post('/api/v1/marketplaces/acme/ingest'), 201);
  await expectJson(t, await root.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200, 'approve');
  const token = async (name: string) =>
    (await expectJson<{ token: string }>(t, await root.post('/api/v1/tokens', { name }), 201)).token;
  return {
    url: `${gw.url}/git/acme`,
    runaway: await token('runaway'),
    other: await token('other'),
    third: await token('third'),
  };
}

const as = (address: string) => ['-c', `http.extraHeader=X-Forwarded-For: ${address}`];
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;

t.test('the git facade: git shows the refusal; other tokens and addresses still clone', async (t) => {
  const gw = await startTestGateway(
    t,
    limited({ GATEWAY_RATE_LIMIT_FACADE_PER_CREDENTIAL: '4', GATEWAY_RATE_LIMIT_FACADE_PER_ADDRESS: '30' }),
  );
  const { url, runaway, other, third } = await servedMarketplace(t, gw);
  const runawayGit = gitClient(t, runaway);
  // Protocol v0: one request (info/refs) per ls-remote, so every refusal lands where git prints the body.
  const lsRemote = () => runawayGit.run([...as('198.51.100.1'), '-c', 'protocol.version=0', 'ls-remote', url]);

  await t.test('a token over its budget: git prints the plain-text message as remote:', async (t) => {
    let served = 0;
    let failed: Awaited<ReturnType<typeof lsRemote>> | null = null;
    for (let i = 0; i < 20 && failed === null; i++) {
      const result = await lsRemote();
      if (result.ok) served++;
      else failed = result;
    }
    t.ok(served >= 4, `the budget of 4 was served first (${served})`);
    t.ok(failed, 'git ls-remote fails once over the budget');
    t.match(
      failed?.stderr ?? '',
      /remote: too many requests with this credential to the git facade: the budget is 4 per 3 seconds on this gateway; retry after \d seconds/,
      'git shows the gateway message as a remote: line',
    );
    t.match(failed?.stderr ?? '', /The requested URL returned error: 429/, 'and the status');

    const { refused } = await untilRefused(() =>
      gw.fetch('/git/acme/info/refs?service=git-upload-pack', {
        headers: { authorization: basic(runaway), ...from('198.51.100.1') },
      }),
    );
    t.match(refused.headers.get('content-type'), /^text\/plain/, 'plain text, not a problem document');
    retryAfterOf(t, refused);
    t.match(await refused.text(), /^too many requests with this credential/);

    // At the same time: another token from the same address clones.
    const clone = await gitClient(t, other).run([...as('198.51.100.1'), 'clone', '--quiet', url, 'acme-other']);
    t.ok(clone.ok, `another token clones meanwhile: ${clone.stderr}`);
  });

  await t.test('an address over its budget: every token refused there, another address served', async (t) => {
    // Requests without a credential (each a 401) count against the address, and run it out. A token that
    // has not been used yet (budget 4: a v2 ls-remote is 2 requests) then tries there and elsewhere.
    const { served, refused } = await untilRefused(() =>
      gw.fetch('/git/acme/info/refs?service=git-upload-pack', { headers: from('203.0.113.5') }),
    );
    t.ok(served >= 30, `the address budget of 30 was served first (${served})`);
    t.equal(refused.status, 429);
    const there = await gitClient(t, third).run([...as('203.0.113.5'), 'ls-remote', url]);
    t.notOk(there.ok, 'a good token from the exhausted address is refused');
    t.match(there.stderr, /remote: too many requests from this address to the git facade/);
    const elsewhere = await gitClient(t, third).run([...as('203.0.113.6'), 'ls-remote', url]);
    t.ok(elsewhere.ok, `the same token from another address is served: ${elsewhere.stderr}`);
    const holdings = await gw.fetch('/status/v1/snapshots', {
      method: 'POST',
      headers: { authorization: basic(third), 'content-type': 'application/json', ...from('203.0.113.5') },
      body: JSON.stringify({ holdings: [] }),
    });
    const problem = await expectProblem(t, holdings, 429, 'rate-limited', '/status/v1 from the exhausted address');
    t.match(problem.detail, /from this address/);
    retryAfterOf(t, holdings);
  });

  await t.test('the budget refills after the window', async (t) => {
    const result = await eventually(
      async () => {
        const attempt = await lsRemote();
        return attempt.ok ? attempt : null;
      },
      15_000,
      250,
    );
    t.match(result.stdout, /refs\/heads\/main/, 'the runaway token lists the refs again');
  });
});

t.test('gateway.rate-limit.enabled: false lets everything through', async (t) => {
  const gw = await startTestGateway(t, {
    ...limited({
      GATEWAY_RATE_LIMIT_API_PER_CREDENTIAL: '1',
      GATEWAY_RATE_LIMIT_API_PER_ADDRESS: '1',
      GATEWAY_RATE_LIMIT_FACADE_PER_CREDENTIAL: '1',
      GATEWAY_RATE_LIMIT_FACADE_PER_ADDRESS: '1',
    }),
    GATEWAY_RATE_LIMIT_ENABLED: 'false',
  });
  const { url, runaway } = await servedMarketplace(t, gw);
  const statuses = new Set<number>();
  for (let i = 0; i < 20; i++)
    statuses.add((await gw.fetch('/api/v1/me', { headers: dev('alice', '1.2.3.4') })).status);
  t.same([...statuses], [200], 'twenty API requests over a budget of 1: all served');
  const client = gitClient(t, runaway);
  for (let i = 0; i < 3; i++) {
    const clone = await client.run([...as('1.2.3.4'), 'clone', '--quiet', url, `acme-${i}`]);
    t.ok(clone.ok, `clone ${i + 1} over a budget of 1: ${clone.stderr}`);
  }
});

t.test('gateway.server.trusted-proxies takes addresses, CIDR ranges and proxy-addr names only', async (t) => {
  const cwd = t.testdir();
  const load = (value: string) => loadConfig({ env: { GATEWAY_SERVER_TRUSTED_PROXIES: value }, cwd });
  t.doesNotThrow(() => load('loopback,10.0.0.0/8,192.0.2.7,fd00::/8'), 'valid entries');
  t.throws(() => load('10.0.0.0/33'), ConfigError, 'a prefix longer than the address');
  t.throws(() => load('proxy.example'), ConfigError, 'a host name');
});
