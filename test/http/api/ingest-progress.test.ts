// An ingest's progress over HTTP while it runs (GET /api/v1/marketplaces/{name}/ingest), and the queue
// of ingests (gateway.ingest.concurrency, GET /api/v1/ingests): docs/decisions/0390 and 0391.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { ingestPhases } from '../../../src/domain/marketplace/ingest-progress.ts';
import { devSession, type ApiAnswer } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { gatedRepos, gatedScanner } from '../../support/gated.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, type Files } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

const pluginNames = (n: number) => Array.from({ length: n }, (_, i) => `plugin-${String(i).padStart(3, '0')}`);

/** 200 local plugins and three external ones, each from a repository of its own. */
function bigMarketplace(url: (name: string) => string): Files {
  const local = marketplaceFiles('big', pluginNames(200));
  const manifest = JSON.parse(local['.claude-plugin/marketplace.json']!) as { plugins: unknown[] };
  for (const i of [0, 1, 2])
    manifest.plugins.push({ name: `ext-${i}`, source: { source: 'url', url: url(`ext-${i}`) } });
  return { ...local, '.claude-plugin/marketplace.json': JSON.stringify(manifest) };
}

const externalPlugin = (name: string): Files => ({
  '.claude-plugin/plugin.json': JSON.stringify({ name, version: '1.0.0' }),
  'commands/run.md': `Run ${name}.\n`,
});

type Progress = {
  marketplace: string;
  state: 'running' | 'queued';
  position: number | null;
  phase: string;
  trigger: string;
  requestedBy: string;
  queuedAt: string;
  startedAt: string | null;
  externals: { done: number; total: number } | null;
  files: { done: number; total: number } | null;
  connectors: { done: number; total: number; current: string | null } | null;
  snapshotId: number | null;
  queued: Progress[];
};

t.test('the progress of a running ingest of 200 plugins, read over HTTP phase by phase, then 404', async (t) => {
  const scanner = await gatedScanner(t);
  const gw = await startTestGateway(t, { ...env, GATEWAY_VETTING_HTTP_URL: scanner.url });
  const root = devSession(gw, 'root');
  const reader = devSession(gw, 'reader');
  const repos = await gatedRepos(t, {
    'ext-0': externalPlugin('ext-0'),
    'ext-1': externalPlugin('ext-1'),
    'ext-2': externalPlugin('ext-2'),
  });
  // The upstream names the external repositories' URLs, known once they are served.
  const upstream = await gatedRepos(t, { big: bigMarketplace(repos.url) });
  t.equal((await root.post('/api/v1/marketplaces', { name: 'big', url: upstream.url('big') })).status, 201);
  t.match(await root.get('/api/v1/marketplaces/big/ingest'), { status: 404, body: { type: /no-ingest-running$/ } });
  t.match(await root.get('/api/v1/marketplaces/nope/ingest'), {
    status: 404,
    body: { type: /marketplace-not-found$/ },
  });

  const seen: Progress[] = [];
  const progress = async (who = root): Promise<ApiAnswer> => {
    const answer = await who.get('/api/v1/marketplaces/big/ingest');
    if (answer.status === 200) seen.push(answer.body as Progress);
    return answer;
  };
  const until = async (check: (p: Progress) => boolean, what: string) => {
    let last = '';
    try {
      return await eventually(async () => {
        const answer = await progress();
        last = answer.text;
        return answer.status === 200 && check(answer.body as Progress) && (answer.body as Progress);
      }, 60_000);
    } catch (error) {
      throw new Error(`${what}: ${(error as Error).message}; last answer ${last}`);
    }
  };

  upstream.gate('big').shut();
  repos.gate('ext-2').shut();
  scanner.gate.shut();
  const ingest = root.post('/api/v1/marketplaces/big/ingest');

  const fetching = await until((p) => p.phase === 'fetch', 'fetching');
  t.match(fetching, {
    marketplace: 'big',
    state: 'running',
    position: null,
    trigger: 'on-demand',
    requestedBy: 'root',
    startedAt: /^\d{4}-/,
    externals: null,
    files: null,
    connectors: null,
    snapshotId: null,
    queued: [],
  });
  t.match(await progress(reader), { status: 200, body: { phase: 'fetch' } }, 'anyone signed in reads it');
  t.match(await root.get('/api/v1/ingests'), {
    status: 200,
    body: { concurrency: 2, running: [{ marketplace: 'big', phase: 'fetch' }], queued: [] },
  });

  upstream.gate('big').open();
  const resolving = await until((p) => p.phase === 'resolve' && p.externals?.done === 2, 'two of three resolved');
  t.same(resolving.externals, { done: 2, total: 3 }, 'external sources: n of m, one held');
  t.equal(resolving.files, null);

  repos.gate('ext-2').open();
  const vetting = await until((p) => p.phase === 'vetting' && p.connectors?.current === 'http', 'the http connector');
  t.equal(vetting.connectors!.done, vetting.connectors!.total - 1, 'every connector before the last has finished');
  t.ok(vetting.connectors!.total >= 6, `${vetting.connectors!.total} connectors enabled`);
  t.ok(vetting.files!.total > 400, `${vetting.files!.total} files: two per plugin, the manifest, the externals`);
  t.equal(vetting.files!.done, vetting.files!.total, 'the tree was read to its end');
  t.type(vetting.snapshotId, 'number', 'the capture is recorded before the vetting');

  scanner.gate.open();
  const answer = await ingest;
  t.equal(answer.status, 201, answer.text);
  t.equal(answer.body.id, vetting.snapshotId, 'the POST answers the snapshot the progress named');
  t.match(await root.get('/api/v1/marketplaces/big/ingest'), { status: 404, body: { type: /no-ingest-running$/ } });
  t.match(await root.get('/api/v1/ingests'), { status: 200, body: { running: [], queued: [] } });

  const order = seen.map((p) => ingestPhases.indexOf(p.phase as (typeof ingestPhases)[number]));
  t.ok(
    order.every((rank, i) => rank >= 0 && (i === 0 || rank >= order[i - 1]!)),
    `phases only move forward: ${[...new Set(seen.map((p) => p.phase))].join(', ')}`,
  );
});

t.test(
  'with gateway.ingest.concurrency 1 the next marketplace waits, with its place, until the running one ends',
  async (t) => {
    const gw = await startTestGateway(t, { ...env, GATEWAY_INGEST_CONCURRENCY: '1' });
    const root = devSession(gw, 'root');
    const repos = await gatedRepos(t, {
      first: marketplaceFiles('first', pluginNames(20)),
      second: marketplaceFiles('second', ['alpha']),
      third: marketplaceFiles('third', ['beta']),
    });
    for (const name of ['first', 'second', 'third'])
      t.equal((await root.post('/api/v1/marketplaces', { name, url: repos.url(name) })).status, 201, name);
    const secret = (await root.put('/api/v1/marketplaces/third/sync', { mode: 'webhook' })).body
      .webhookSecret as string;
    const read = async (name: string) => (await root.get(`/api/v1/marketplaces/${name}/ingest`)).body as Progress;

    repos.gate('first').shut();
    const first = root.post('/api/v1/marketplaces/first/ingest');
    await eventually(async () => (await read('first')).phase === 'fetch' && repos.gate('first').waiting() > 0, 30_000);
    const secondHits = repos.hits('second');
    const second = root.post('/api/v1/marketplaces/second/ingest');
    // Queued in this order: the second request is sent only once the first of them holds its place.
    await eventually(async () => (await root.get('/api/v1/ingests')).body.queued.length === 1, 30_000);
    const again = root.post('/api/v1/marketplaces/first/ingest');
    await eventually(async () => (await root.get('/api/v1/ingests')).body.queued.length === 2, 30_000);
    const body = '{"ref":"refs/heads/main"}';
    const hook = await gw.fetch('/hooks/third', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
    });
    t.equal(hook.status, 202, 'the webhook queues its ingest');

    const waiting = await read('second');
    t.match(waiting, {
      marketplace: 'second',
      state: 'queued',
      phase: 'queued',
      position: 1,
      startedAt: null,
      trigger: 'on-demand',
      queued: [],
    });
    t.match(await read('first'), {
      state: 'running',
      phase: 'fetch',
      queued: [{ state: 'queued', position: 2, trigger: 'on-demand', requestedBy: 'root' }],
    });
    const all = (await root.get('/api/v1/ingests')).body;
    t.match(all, {
      concurrency: 1,
      running: [{ marketplace: 'first', state: 'running' }],
      queued: [
        { marketplace: 'second', position: 1 },
        { marketplace: 'first', position: 2 },
        { marketplace: 'third', position: 3, trigger: 'webhook', requestedBy: 'webhook' },
      ],
    });
    t.equal(all.running.length, 1, 'one at a time');
    t.equal(repos.hits('second'), secondHits, 'a waiting ingest has not touched its upstream');

    repos.gate('first').open();
    const [one, two, three] = await Promise.all([first, second, again]);
    t.equal(one.status, 201, one.text);
    t.equal(two.status, 201, two.text);
    t.equal(three.status, 201, three.text);
    t.equal(three.body.id, one.body.id, 'the second ingest of first ran after the first one: the same commit');
    t.ok(repos.hits('second') > secondHits, 'second was fetched once its turn came');
    await eventually(async () => {
      const now = (await root.get('/api/v1/ingests')).body;
      return now.running.length + now.queued.length === 0;
    }, 60_000);
    const third = ((await root.get('/api/v1/marketplaces')).body as { name: string; snapshots: unknown[] }[]).find(
      (m) => m.name === 'third',
    );
    t.equal(third?.snapshots.length, 1, 'the webhook ingest ran in its turn');
  },
);
