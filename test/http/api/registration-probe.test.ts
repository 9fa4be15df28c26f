// Registration checks that the upstream holds a marketplace an ingest would accept: its default branch's
// .claude-plugin/marketplace.json, read by a bounded depth-1 fetch. What is wrong comes back in the 201's
// warnings (never a refusal), and a probe that could not fetch is a warning too; an upstream whose default
// branch cannot be listed is still refused 502, as before (spec, Registration rules).
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { cleanMarketplace } from '../../support/planted.ts';
import { gitHttpBackend, gitIn, serveUpstream } from '../../support/upstream.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

/** `upstream` behind a server that lists its refs but fails every fetch of objects (503). */
async function listsButNeverFetches(t: Test, bare: string): Promise<string> {
  const root = join(bare, '..');
  const backend = join(await gitIn(root, '--exec-path'), 'git-http-backend');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('latin1');
      if (text.includes('command=fetch') || /\bwant [0-9a-f]{40}/.test(text)) {
        res.writeHead(503).end('unavailable');
        return;
      }
      const replay = Object.assign(Readable.from([body]), { url: req.url, method: req.method, headers: req.headers });
      gitHttpBackend(backend, root, replay as unknown as typeof req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/${bare.split('/').at(-1)}`;
}

t.test('the 201 warns of an upstream without a usable marketplace, and still registers it', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const register = async (name: string, url: string) => {
    const answer = await root.post('/api/v1/marketplaces', { name, url });
    t.equal(answer.status, 201, `${name}: ${answer.text}`);
    return answer.body as { name: string; warnings: string[] };
  };

  const clean = await serveUpstream(t, cleanMarketplace());
  t.same((await register('tidy', clean.url)).warnings, [], 'a usable marketplace: no warning');

  const empty = await serveUpstream(t, { 'README.md': 'not a marketplace\n' });
  t.match(
    (await register('readme', empty.url)).warnings,
    [/^no marketplace on the default branch \(main\): \.claude-plugin\/marketplace\.json is missing/],
    'no marketplace.json: warned',
  );

  const broken = await serveUpstream(t, cleanMarketplace({ '.claude-plugin/marketplace.json': '{"name": ' }));
  t.match(
    (await register('broken', broken.url)).warnings,
    [/^the marketplace on the default branch \(main\) would be rejected at ingest: .*is not valid JSON/],
    'not valid JSON: warned with the reason the ingest would give',
  );

  const flaky = await serveUpstream(t, cleanMarketplace(), 'flaky');
  t.match(
    (await register('flaky', await listsButNeverFetches(t, flaky.bare))).warnings,
    [/^the upstream was not checked for a marketplace \(.+\): ingest to read the upstream in full/],
    'a probe that cannot fetch: a warning, not a refusal',
  );

  const unreachable = await root.post('/api/v1/marketplaces', { name: 'gone', url: 'http://127.0.0.1:1/x.git' });
  t.equal(unreachable.status, 502, 'an upstream that cannot be listed is still refused (spec)');

  const listed = (await root.get('/api/v1/marketplaces')).body as { name: string }[];
  t.same(listed.map((m) => m.name).sort(), ['broken', 'flaky', 'readme', 'tidy'], 'every warned one registered');
});
