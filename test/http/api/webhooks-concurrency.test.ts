import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { receiver } from '../../support/receiver.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Deliveries to different receivers go out independently (one at a time per receiver): a receiver that never
// answers holds only its own deliveries until the timeout, never another receiver's.

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '100ms',
  GATEWAY_WEBHOOKS_TIMEOUT: '20s',
};

/** A receiver that reads each request and never answers (until the test ends). */
async function hanging(t: Test) {
  const arrived: number[] = [];
  const open: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    arrived.push(Date.now());
    open.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrived };
}

t.test("a receiver that never answers does not delay another receiver's deliveries", async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const stuck = await hanging(t);
  const healthy = await receiver(t);
  for (const url of [stuck.url, healthy.url])
    t.equal((await root.post('/api/v1/webhooks', { url, events: ['marketplace.snapshot.soft_deleted'] })).status, 201);

  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url });
  const first = (await root.post('/api/v1/marketplaces/acme/ingest')).body as { id: number };
  await upstream.commit({ 'plugins/alpha/NOTES.md': 'second\n' });
  const second = (await root.post('/api/v1/marketplaces/acme/ingest')).body as { id: number };

  t.equal((await root.delete(`/api/v1/snapshots/${first.id}`)).status, 200);
  await eventually(async () => stuck.arrived.length === 1 && healthy.received.length === 1, 10_000, 20);
  t.pass('the first soft deletion reached both; the stuck receiver holds its delivery open');

  const deleted = Date.now();
  t.equal((await root.delete(`/api/v1/snapshots/${second.id}`)).status, 200);
  await eventually(async () => healthy.received.length === 2, 5_000, 20);
  t.ok(Date.now() - deleted < 5_000, `the healthy receiver had the second within ${Date.now() - deleted} ms`);
  t.equal(stuck.arrived.length, 1, 'the stuck receiver still has one delivery on its way, and no second beside it');
});
