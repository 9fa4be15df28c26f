// The request log of a person browsing the portal: one line per request at info, none for the health
// endpoint or static files, and nothing else between them that a terminal would have to scroll past.
import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger, startGateway } from '../../src/gateway.ts';
import { quietRequest } from '../../src/http/request-log.ts';
import { testConfig } from '../support/gateway.ts';
import { openBrowser } from '../support/browser.ts';

t.test('browsing the portal writes one log line per request, none for health or static files', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const config = await testConfig(t, {
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: 'root',
  });
  const gw = await startGateway(config, createLogger(config, sink));
  t.teardown(() => gw.close());
  const before = lines.length;

  const context = await browser.newContext({ baseURL: gw.url, extraHTTPHeaders: { 'x-dev-user': 'root' } });
  const page = await context.newPage();
  const asked: string[] = [];
  const answered: Promise<unknown>[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== gw.url) return;
    asked.push(url.pathname);
    answered.push(request.response().catch(() => null));
  });
  for (const path of ['/', '/marketplaces', '/access', '/audit', '/policy']) {
    await page.goto(path);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.waitForLoadState('networkidle');
  }
  for (let i = 0; i < 10; i += 1) await (await fetch(`${gw.url}/actuator/health`)).body?.cancel();
  await (await fetch(`${gw.url}/favicon.ico`)).body?.cancel();
  await Promise.all(answered);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await context.close();

  const written = lines.slice(before).map((line) => JSON.parse(line) as Record<string, any>);
  const requestLines = written.filter((entry) => entry.req !== undefined);
  const loud = asked.filter((path) => !quietRequest(path));
  t.ok(
    asked.some((path) => path.startsWith('/assets/')),
    'the browser loaded static files',
  );
  t.ok(loud.length >= 10, `the session made ${loud.length} logged requests`);
  t.equal(requestLines.length, loud.length, 'exactly one line per request that is not health or static');
  t.same(
    requestLines.filter((entry) => quietRequest(entry.req.url.split('?')[0])),
    [],
    'no line for health or static files',
  );
  for (const entry of requestLines)
    t.match(entry.msg, new RegExp(`^${entry.req.method} \\S+ ${entry.res.statusCode} [0-9.]+ ms$`), 'a readable line');
  t.same(
    written.filter((entry) => entry.req === undefined && entry.level <= 30).map((entry) => entry.msg),
    [],
    'no other info line while browsing',
  );
});

t.test('pretty output is one readable line per request, without the structured copies', async (t) => {
  let out = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out += chunk.toString();
      done();
    },
  });
  const config = await testConfig(t, { GATEWAY_LOG_LEVEL: 'info', GATEWAY_LOG_FORMAT: 'pretty' });
  const gw = await startGateway(config, createLogger(config, sink));
  t.teardown(() => gw.close());
  const before = out.length;
  await (await fetch(`${gw.url}/api/v1/marketplaces?token=t0ken-AAAA`)).body?.cancel();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const written = out.slice(before).split('\n').filter(Boolean);
  t.equal(written.length, 1, 'one line');
  t.match(
    written[0],
    /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/marketplaces\?token=\[redacted\] 401 [0-9.]+ ms$/,
  );
  t.notMatch(written[0], /AAAA|\{/, 'no credential and no JSON copy of the request');
});
