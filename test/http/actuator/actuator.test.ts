import t from 'tap';
import { startTestGateway } from '../../support/gateway.ts';

t.test('GET /actuator/health answers without credentials and reports the database and event store', async (t) => {
  const gw = await startTestGateway(t);
  const response = await gw.fetch('/actuator/health');
  t.equal(response.status, 200);
  t.strictSame(await response.json(), {
    status: 'UP',
    components: { database: { status: 'UP' }, eventStore: { status: 'UP', backend: 'postgres' } },
  });
});

t.test('an unknown route is a 404 problem document (spec, Errors)', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true' });
  const response = await gw.fetch('/api/v1/nothing-here?x=1', { headers: { 'x-dev-user': 'alice' } });
  t.equal(response.status, 404);
  t.match(response.headers.get('content-type'), /^application\/problem\+json/);
  const problem = (await response.json()) as Record<string, unknown>;
  t.strictSame(Object.keys(problem).sort(), ['detail', 'instance', 'status', 'title', 'type']);
  // gateway.base-url defaults to http://127.0.0.1:<the port in force> (here the port bound for port 0).
  t.match(problem, { type: `${gw.url}/problems/not-found`, status: 404, instance: '/api/v1/nothing-here' });
  t.match(problem.detail, /GET \/api\/v1\/nothing-here/);
  const page = await gw.fetch('/problems/not-found');
  t.equal(page.status, 200, 'the problem type dereferences to its page');
  t.match(await page.text(), /not-found/);
});

t.test('the OpenAPI document and its reference UI answer only an authenticated caller', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true' });
  t.equal((await gw.fetch('/v3/api-docs')).status, 401);
  t.equal((await gw.fetch('/docs/')).status, 401);
  const signedIn = { headers: { 'x-dev-user': 'alice' } };
  const doc = (await (await gw.fetch('/v3/api-docs', signedIn)).json()) as {
    openapi: string;
    paths: Record<string, unknown>;
    info: { version: string };
  };
  t.equal(doc.openapi, '3.1.0');
  t.ok(doc.paths['/actuator/health'], 'generated from the route schemas');
  t.match(doc.info.version, /^\d+\.\d+\.\d+/, 'carries the build version');
  t.ok(doc.paths['/api/v1/tokens'], 'the API routes are documented');
  const ui = await gw.fetch('/docs/', signedIn);
  t.equal(ui.status, 200);
  t.match(await ui.text(), /swagger/i);
});

t.test('after close() the gateway no longer answers', async (t) => {
  const gw = await startTestGateway(t);
  t.equal((await gw.fetch('/actuator/health')).status, 200);
  await gw.close();
  await t.rejects(gw.fetch('/actuator/health'), 'connection refused once closed');
});

t.test('health answers on a connection of its own while every pooled connection is taken', async (t) => {
  const gw = await startTestGateway(t);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // Borrow the request pool's ten connections and keep them: what a burst of slow requests does.
  const borrowed = Array.from({ length: 10 }, () => gw.core.pool.connect(() => held));
  t.teardown(async () => {
    release();
    await Promise.all(borrowed);
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 5 }, () => gw.fetch('/actuator/health')));
  const elapsed = performance.now() - started;
  t.same(
    answers.map((answer) => answer.status),
    [200, 200, 200, 200, 200],
    'UP, though no pooled connection is free',
  );
  // The probe's own timeout is 2 s: a probe queued behind the pool would be reported DOWN, not UP.
  t.ok(elapsed < 1500, `answered in ${Math.round(elapsed)} ms`);
});
