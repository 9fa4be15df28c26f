import { request as httpRequest, type ClientRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { expectJson, session } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Hostile upload-pack requests: decompression bombs, line floods and protocol v2
// bodies git itself dies on. Each is answered 400 in git's terms, as soon as the limit is passed,
// while the rest of the gateway keeps answering. /tmp/decisions/facade-limits.md has the limits.

const pkt = (text: string) =>
  Buffer.concat([Buffer.from((Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')), Buffer.from(text)]);
const flush = Buffer.from('0000');
const delim = Buffer.from('0001');
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;
const mib = 1024 * 1024;

type Answer = Readonly<{ status: number; type: string; body: string }>;

/** A POST whose body the test writes itself (and may never finish); `answer` settles with the response. */
function openUpload(gw: TestGateway, headers: Record<string, string>): { req: ClientRequest; answer: Promise<Answer> } {
  const req = httpRequest(`${gw.url}/git/acme/git-upload-pack`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-git-upload-pack-request', ...headers },
  });
  const answer = new Promise<Answer>((resolve) => {
    req.on('error', () => resolve({ status: 0, type: '', body: '' }));
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', () => resolve({ status: response.statusCode ?? 0, type: '', body: '' }));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('latin1'),
        }),
      );
    });
  });
  return { req, answer };
}

const unanswered = (ms: number) =>
  new Promise<Answer>((resolve) => setTimeout(() => resolve({ status: -1, type: '', body: 'no answer' }), ms).unref());

/** A whole body sent at once. */
async function upload(gw: TestGateway, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  const { req, answer } = openUpload(gw, headers);
  req.end(body);
  return answer;
}

async function setUp(t: Test) {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const api = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  await expectJson(t, await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }), 201);
  const snapshot = await expectJson<{ id: number; sha: string }>(
    t,
    await api.post('/api/v1/marketplaces/acme/ingest'),
    201,
  );
  await expectJson(t, await api.post(`/api/v1/snapshots/${snapshot.id}/approve`), 200);
  const token = await expectJson<{ token: string }>(t, await api.post('/api/v1/tokens', { name: 'hostile' }), 201);
  return { gw, tip: snapshot.sha, token: token.token, auth: { authorization: basic(token.token) } };
}

t.test('hostile upload-pack requests', async (t) => {
  const { gw, tip, token, auth } = await setUp(t);
  const v2 = { ...auth, 'git-protocol': 'version=2' };
  const gzip = { 'content-encoding': 'gzip' };
  const health = async () => (await gw.fetch('/actuator/health')).status;

  t.test('a gzip bomb of flush packets is refused from its first kilobytes, before its body ends', async (t) => {
    // 60 MiB of "0000" (15.7 million flush packets) in 60 KiB of gzip, as the attack was sent.
    const bomb = gzipSync(Buffer.alloc(60 * mib, 0x30), { level: 9 });
    t.ok(bomb.length < 128 * 1024, `the bomb is small (${bomb.length} bytes)`);
    const afterFetch = gzipSync(
      Buffer.concat([pkt('command=fetch'), delim, pkt(`want ${tip}\n`), pkt('done\n'), Buffer.alloc(60 * mib, 0x30)]),
    );
    const cases: Array<[string, Buffer, Record<string, string>, RegExp]> = [
      ['v2, flushes only', bomb, v2, /malformed request: expected command=/],
      ['v2, flushes after a fetch', afterFetch, v2, /malformed request: data after the end of the request/],
      ['v0, flushes only', bomb, auth, /malformed request: data after the end of the request/],
    ];
    for (const [why, body, headers, reason] of cases) {
      const { req, answer } = openUpload(gw, { ...headers, ...gzip });
      // A third of the body, and never the rest: only a gateway that reads as it inflates can answer.
      req.write(body.subarray(0, Math.floor(body.length / 3)));
      t.equal(await health(), 200, `${why}: /actuator/health answers while the bomb is being sent`);
      // A bound only so that a gateway waiting for the rest fails here rather than hanging the run.
      const refused = await Promise.race([answer, unanswered(20_000)]);
      t.equal(refused.status, 400, `${why}: 400 before the body ended`);
      t.match(refused.type, /^text\/plain/, `${why}: a text answer git prints`);
      t.match(refused.body, reason, why);
      req.destroy();
    }

    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const whole = await Promise.all([upload(gw, bomb, { ...v2, ...gzip }), health(), health()]);
    clearInterval(sampler);
    t.equal(whole[0].status, 400, 'the whole bomb sent at once: 400');
    t.strictSame(whole.slice(1), [200, 200], '/actuator/health answers meanwhile');
    // Printed, not asserted (the test process holds the bomb too): `npm run bench` measures it properly.
    t.comment(
      `RSS of the test process: ${(idle / mib).toFixed(0)} MiB before, +${((peak - idle) / mib).toFixed(1)} MiB peak`,
    );
  });

  t.test('a body inflating past 8 MiB is refused when the limit is passed, however well formed', async (t) => {
    const option = pkt(`server-option=${'x'.repeat(65_000)}\n`);
    const big = Buffer.concat([pkt('command=ls-refs\n'), ...Array.from({ length: 140 }, () => option), flush]);
    t.ok(big.length > 8 * mib, 'over 8 MiB inflated');
    const refused = await upload(gw, gzipSync(big), { ...v2, ...gzip });
    t.equal(refused.status, 400);
    t.match(refused.body, /the request inflates beyond 8388608 bytes/);
    const fits = Buffer.concat([pkt('command=ls-refs\n'), ...Array.from({ length: 100 }, () => option), flush]);
    const served = await upload(gw, gzipSync(fits), { ...v2, ...gzip });
    t.equal(served.status, 200, '6.5 MiB of the same lines are served');
    t.match(served.body, new RegExp(`${tip} refs/heads/main`));
  });

  t.test('more than 100,000 pkt-lines are refused, gzip-encoded or not', async (t) => {
    const have = pkt(`have ${'f'.repeat(40)}\n`);
    const request = (haves: number) =>
      Buffer.concat([
        pkt(`want ${tip} side-band-64k ofs-delta\n`),
        flush,
        ...Array.from({ length: haves }, () => have),
        pkt('done\n'),
      ]);
    for (const [why, encode, headers] of [
      ['plain', (body: Buffer) => body, auth],
      ['gzip', (body: Buffer) => gzipSync(body), { ...auth, ...gzip }],
    ] as const) {
      const refused = await upload(gw, encode(request(100_000)), headers);
      t.equal(refused.status, 400, `${why}: 100,003 lines`);
      t.match(refused.body, /more than 100000 pkt-lines/);
      const served = await upload(gw, encode(request(99_997)), headers);
      t.equal(served.status, 200, `${why}: 100,000 lines are served`);
      t.ok(served.body.includes('PACK'), `${why}: with a pack`);
    }
  });

  t.test('protocol v2 bodies git dies on are 400 in git terms, never 500', async (t) => {
    const lsRefs = (...lines: Buffer[]) => Buffer.concat([pkt('command=ls-refs\n'), ...lines, flush]);
    const cases: Array<[string, Buffer, RegExp]> = [
      [
        'two command= lines (fetch, then ls-refs)',
        Buffer.concat([pkt('command=fetch\n'), pkt('command=ls-refs\n'), delim, pkt('peel\n'), flush]),
        /a second command= line/,
      ],
      ['an ls-refs argument git does not know', lsRefs(delim, pkt('bogus\n')), /unexpected ls-refs argument/],
      ['a sha256 ls-refs', lsRefs(pkt('object-format=sha256\n')), /malformed object-format line/],
      ['an unadvertised capability', lsRefs(pkt('session-id=1\n')), /unexpected capability/],
      ['ls-refs without its final flush', lsRefs(delim, pkt('peel\n')).subarray(0, -4), /ends early/],
      [
        'object-info (not served)',
        Buffer.concat([pkt('command=object-info\n'), flush]),
        /unsupported protocol v2 command/,
      ],
      ['an empty body', Buffer.alloc(0), /an empty request/],
    ];
    for (const [why, body, reason] of cases) {
      for (const encoding of [{}, gzip]) {
        const answer = await upload(gw, 'content-encoding' in encoding ? gzipSync(body) : body, { ...v2, ...encoding });
        t.equal(answer.status, 400, `${why}${'content-encoding' in encoding ? ' (gzip)' : ''}: 400`);
        t.match(answer.type, /^text\/plain/);
        t.match(answer.body, reason, why);
      }
    }
  });

  t.test('the v2 advertisement names only what is served; git clones and fetches over v2 and v0', async (t) => {
    const advertisement = await (await gw.fetch('/git/acme/info/refs?service=git-upload-pack', { headers: v2 })).text();
    t.match(advertisement, /version 2\n/);
    t.match(advertisement, /ls-refs/);
    t.match(advertisement, /fetch=/);
    t.notMatch(advertisement, /object-info/, 'object-info is not advertised (the facade refuses it)');
    const client = gitClient(t, token);
    const url = `${gw.url}/git/acme`;
    for (const protocol of [2, 0] as const) {
      const clone = await client.clone(url, { protocol });
      t.ok(clone.ok, `clone over v${protocol}: ${clone.stderr}`);
      t.equal((await client.run(['rev-parse', 'HEAD'], clone.dir)).stdout, tip, `v${protocol}: the approved commit`);
      const fetched = await client.run(['-c', `protocol.version=${protocol}`, 'fetch', 'origin'], clone.dir);
      t.ok(fetched.ok, `fetch over v${protocol}: ${fetched.stderr}`);
      const remote = await client.run(['-c', `protocol.version=${protocol}`, 'ls-remote', url]);
      t.match(remote.stdout, new RegExp(`${tip}\trefs/heads/main`), `ls-remote over v${protocol}`);
    }
  });
});
