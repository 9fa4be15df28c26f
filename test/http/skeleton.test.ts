import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { Type } from 'typebox';
import { createLogger } from '../../src/gateway.ts';
import { reject } from '../../src/application/kernel/rejected.ts';
import { buildServer } from '../../src/http/server.ts';
import { testCore, testHttpDeps } from '../support/core.ts';
import { testConfig } from '../support/gateway.ts';

// The skeleton's error handling seen through a probe route: every failure is a problem document.
async function probeApp(t: Parameters<typeof testCore>[0], logger = pino({ level: 'silent' })) {
  const core = await testCore(t);
  const app = await buildServer(await testHttpDeps(core, { logger }));
  app.post(
    '/probe',
    {
      schema: {
        body: Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            mode: Type.Union([Type.Literal('on-demand'), Type.Literal('scheduled')]),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({ ok: request.body.name }),
  );
  app.get('/refuse', async () => {
    throw reject('trust-boundary', 'scheme ftp is not allowed', {
      type: 'evil',
      reason: 'r',
      rootCause: 'c',
      nextStep: 'n',
    });
  });
  app.get('/crash', async () => {
    throw new Error('secret internal detail');
  });
  t.teardown(() => app.close());
  return app;
}

const problemOf = (response: { headers: Record<string, unknown>; json(): unknown }) => {
  return { type: response.headers['content-type'], body: response.json() as Record<string, unknown> };
};

t.test('malformed JSON is a 400 problem', async (t) => {
  const app = await probeApp(t);
  const response = await app.inject({
    method: 'POST',
    url: '/probe',
    headers: { 'content-type': 'application/json' },
    payload: '{"name": ',
  });
  t.equal(response.statusCode, 400);
  t.match(problemOf(response), {
    type: /application\/problem\+json/,
    body: { type: 'https://gw.example.test/problems/malformed-body', status: 400, instance: '/probe' },
  });
});

t.test('a body of the wrong content type is a 415 problem', async (t) => {
  const app = await probeApp(t);
  const response = await app.inject({
    method: 'POST',
    url: '/probe',
    headers: { 'content-type': 'text/plain' },
    payload: 'hello',
  });
  t.equal(response.statusCode, 415);
  t.match(problemOf(response).body, { status: 415, type: /unsupported-media-type$/, detail: /text\/plain/ });
});

t.test('schema violations are 422 problems: unknown enum value, unknown field, missing field', async (t) => {
  const app = await probeApp(t);
  const send = (payload: unknown) => app.inject({ method: 'POST', url: '/probe', payload: payload as object });
  const badEnum = await send({ name: 'a', mode: 'sometimes' });
  t.equal(badEnum.statusCode, 422);
  t.match(badEnum.json(), {
    type: 'https://gw.example.test/problems/invalid-request',
    status: 422,
    detail: 'body/mode must be one of: on-demand, scheduled',
  });
  const extra = await send({ name: 'a', mode: 'scheduled', extra: true });
  t.equal(extra.statusCode, 422, 'unknown fields are refused, not stripped');
  t.match(extra.json(), { detail: /unknown property 'extra'/ });
  const missing = await send({ mode: 'scheduled' });
  t.equal(missing.statusCode, 422);
  t.match(missing.json(), { detail: "body is missing the required property 'name'" });
  const ok = await send({ name: 'a', mode: 'scheduled' });
  t.equal(ok.statusCode, 200, 'a valid body passes');
});

t.test('a body over the limit is a 413 problem', async (t) => {
  const app = await probeApp(t);
  const response = await app.inject({
    method: 'POST',
    url: '/probe',
    payload: { name: 'x'.repeat(4096), mode: 'scheduled' },
  });
  t.equal(response.statusCode, 413);
  t.match(response.json(), { status: 413, type: /payload-too-large$/ });
});

t.test('a rejection keeps its extensions but cannot overwrite the standard members', async (t) => {
  const app = await probeApp(t);
  const response = await app.inject({ method: 'GET', url: '/refuse' });
  t.equal(response.statusCode, 400);
  t.strictSame(response.json(), {
    type: 'https://gw.example.test/problems/trust-boundary',
    title: 'Refused at the trust boundary',
    status: 400,
    detail: 'scheme ftp is not allowed',
    instance: '/refuse',
    reason: 'r',
    rootCause: 'c',
    nextStep: 'n',
  });
});

t.test('an unexpected failure is a generic 500 problem that leaks nothing', async (t) => {
  const app = await probeApp(t);
  const response = await app.inject({ method: 'GET', url: '/crash' });
  t.equal(response.statusCode, 500);
  t.notMatch(response.body, /secret internal detail/);
  t.match(response.json(), { status: 500, type: /internal-error$/ });
});

t.test('closing finishes in-flight requests', async (t) => {
  const app = await probeApp(t);
  // The handler holds its request until close() has begun (preClose runs once close() has marked the
  // server closing, right before it stops listening), so the request is in flight whatever the machine's
  // speed: no timed wait.
  let entered!: () => void;
  let release!: () => void;
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/held', async () => {
    entered();
    await released;
    return { done: true };
  });
  app.addHook('preClose', (done) => {
    release();
    done();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  // Without keep-alive: close() would otherwise wait for the client to drop its idle connection.
  const inflight = fetch(`http://127.0.0.1:${address.port}/held`, { headers: { connection: 'close' } });
  await inHandler;
  await app.close();
  const response = await inflight;
  t.equal(response.status, 200);
  t.strictSame(await response.json(), { done: true });
});

t.test('request logs carry no credentials', async (t) => {
  let logged = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const config = await testConfig(t, { GATEWAY_LOG_LEVEL: 'info' });
  const app = await probeApp(t, createLogger(config, sink));
  await app.inject({
    method: 'GET',
    url: '/refuse',
    headers: { authorization: 'Basic dXNlcjpnd19zZWNyZXQ=', cookie: 'SESSION=topsecret' },
  });
  t.match(logged, /\/refuse/, 'the request was logged');
  t.notMatch(logged, /dXNlcjpnd19zZWNyZXQ=|topsecret/, 'but not its credentials');
});

t.test(
  'read models that do not catch up in time answer 503 with Retry-After, saying the change was recorded',
  async (t) => {
    const core = await testCore(t, { waitTimeoutMs: 200 });
    const app = await buildServer(await testHttpDeps(core));
    t.teardown(() => app.close());
    app.post('/lagging', async () => {
      const { position } = await core.store.append(
        'probe-1',
        [
          {
            type: 'probe-happened',
            data: {},
            metadata: { principal: 'a', actorType: 'human', correlationId: 'c', at: 'x' },
          },
        ],
        'any',
      );
      await core.waiter.waitFor(position); // no runner is running: the projections never arrive
      return {};
    });
    const response = await app.inject({ method: 'POST', url: '/lagging' });
    t.equal(response.statusCode, 503);
    t.equal(response.headers['retry-after'], '1');
    t.match(response.json(), { type: 'https://gw.example.test/problems/projection-lag', detail: /was recorded/ });
  },
);
