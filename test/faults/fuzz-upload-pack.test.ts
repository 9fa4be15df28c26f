import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { PktLineError } from '../../src/adapters/git/pkt-line.ts';
import { parseUploadPackRequest, UploadPackRequestParser } from '../../src/adapters/git/upload-pack-request.ts';
import { expectJson, session } from '../support/assert.ts';
import { startTestGateway } from '../support/gateway.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../support/upstream.ts';
import { fuzzInput, random, type Objects } from './upload-pack-inputs.ts';
import { scratchDir } from '../support/scratch.ts';

// The pkt-line and upload-pack request parsers fuzzed in-process, and the facade over HTTP
// with a valid token: no input yields a 500, a crash or a pack holding an object the facade does not
// serve. `npm test` runs a bounded count; FAULTS_LONG=1 the long run. FUZZ_SEED=<n> replays a run.

const long = process.env['FAULTS_LONG'] === '1';
const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);
const parserInputs = Number(process.env['FUZZ_PARSER_INPUTS'] ?? (long ? 1_000_000 : 20_000));
const httpInputs = Number(process.env['FUZZ_HTTP_INPUTS'] ?? (long ? 100_000 : 2_000));
// tap's 300 s per file is for the bounded run; the long run takes what its inputs need.
t.setTimeout(Math.max(300_000, httpInputs * 30 + parserInputs / 10));
const run = promisify(execFile);
const identity = { GIT_AUTHOR_NAME: 'fuzz', GIT_AUTHOR_EMAIL: 'fuzz@example.com', GIT_COMMITTER_NAME: 'fuzz' };
const options = (cwd: string) => ({
  cwd,
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, ...identity, GIT_COMMITTER_EMAIL: 'fuzz@example.com' },
});
const git = async (cwd: string, args: string[], input?: Buffer) => {
  if (input === undefined) return (await run('git', args, options(cwd))).stdout;
  return new Promise<string>((resolve, reject) => {
    const child = execFile('git', args, options(cwd), (error, stdout) => (error ? reject(error) : resolve(stdout)));
    child.stdin?.end(input);
  });
};

t.comment(`FUZZ_SEED=${seed} (${long ? 'long run' : 'bounded run'})`);

t.test('the request parser: PktLineError or a request, whatever the input and its chunking', async (t) => {
  const objects: Objects = { advertised: ['a'.repeat(40)], reachable: ['b'.repeat(40)], planted: ['c'.repeat(40)] };
  let accepted = 0;
  const failures: string[] = [];
  for (let i = 0; i < parserInputs && failures.length < 10; i += 1) {
    const input = fuzzInput(seed, i, objects);
    let body = input.body;
    if (input.headers['content-encoding'] === 'gzip') {
      try {
        body = gunzipSync(body);
      } catch {
        continue;
      }
    }
    const version = input.headers['git-protocol'] ? 2 : 0;
    const outcome = (parse: () => unknown) => {
      try {
        return JSON.stringify(parse());
      } catch (error) {
        if (error instanceof PktLineError) return `refused: ${error.message}`;
        failures.push(`input ${i} (${input.what}): ${String(error)}`);
        return 'crashed';
      }
    };
    const whole = outcome(() => parseUploadPackRequest(body, version, 100_000));
    if (!whole.startsWith('refused')) accepted += 1;
    if (i % 10 !== 0) continue;
    const r = random(i);
    const chunked = outcome(() => {
      const parser = new UploadPackRequestParser(version, 100_000);
      for (let at = 0; at < body.length;) {
        const size = 1 + r.int(64);
        parser.push(body.subarray(at, at + size));
        at += size;
      }
      return parser.end();
    });
    if (chunked !== whole) failures.push(`input ${i} (${input.what}): chunked ${chunked} ≠ whole ${whole}`);
  }
  t.strictSame(failures, [], `${parserInputs} inputs: only PktLineError, the same answer in chunks`);
  t.ok(accepted > parserInputs / 20, `the generator reaches past the parser too (${accepted} accepted)`);
});

/** The pack inside an upload-pack answer: side-band channel 1, or raw bytes after the last pkt-line. */
function packOf(answer: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 4 <= answer.length) {
    const prefix = answer.toString('latin1', at, at + 4);
    if (!/^[0-9a-f]{4}$/.test(prefix)) return Buffer.concat([...parts, answer.subarray(at)]);
    const length = Number.parseInt(prefix, 16);
    if (length < 4) {
      at += 4;
      continue;
    }
    if (answer[at + 4] === 1) parts.push(answer.subarray(at + 5, at + length));
    at += length;
  }
  return Buffer.concat(parts);
}

t.test('the facade: no 500, no crash, no pack with an object it does not serve', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const api = session(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const marketplace = await expectJson<{ id: number }>(
    t,
    await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url }),
    201,
  );
  const ingest = async () =>
    expectJson<{ id: number; sha: string }>(t, await api.post('/api/v1/marketplaces/acme/ingest'), 201);
  const unapproved = await ingest();
  await upstream.commit({ 'plugins/alpha/README.md': 'two\n' });
  const older = await ingest();
  await expectJson(t, await api.post(`/api/v1/snapshots/${older.id}/approve`), 200);
  await upstream.commit({ 'plugins/alpha/README.md': 'three\n' });
  const tip = await ingest();
  await expectJson(t, await api.post(`/api/v1/snapshots/${tip.id}/approve`), 200);
  const token = await expectJson<{ token: string }>(t, await api.post('/api/v1/tokens', { name: 'fuzz' }), 201);

  // Objects in the published repository that nothing advertised reaches: a blob, its tree, a commit.
  const published = gw.deps.gitStore.publishedPath(marketplace.id);
  const blob = (await git(published, ['hash-object', '-w', '--stdin'], Buffer.from(`planted ${seed}\n`))).trim();
  const tree = (await git(published, ['mktree'], Buffer.from(`100644 blob ${blob}\tsecret\n`))).trim();
  const commit = (await git(published, ['commit-tree', tree, '-p', tip.sha, '-m', 'planted'])).trim();
  const refs = (await git(published, ['for-each-ref', '--format=%(objectname)'])).split('\n').filter(Boolean);
  const advertised = [...new Set(refs)];
  t.ok(advertised.includes(tip.sha) && advertised.includes(older.sha), 'the approved snapshots are advertised');
  const served = new Set(
    (await git(published, ['rev-list', '--objects', ...advertised])).split('\n').map((l) => l.slice(0, 40)),
  );
  const planted = [commit, tree, blob];
  t.notOk(
    planted.some((id) => served.has(id)),
    'the planted objects are reachable from nothing advertised',
  );
  const objects: Objects = { advertised, reachable: [unapproved.sha], planted };

  // Packs are indexed against a repository holding exactly what is served (thin packs resolve there).
  const scratch = scratchDir(t, 'fuzz-packs-');
  await git(scratch, ['clone', '--quiet', '--bare', '--no-local', published, 'served.git']);
  const indexed = new Map<string, string[]>();
  const objectsOf = async (pack: Buffer): Promise<string[]> => {
    const key = createHash('sha256').update(pack).digest('hex');
    const known = indexed.get(key);
    if (known) return known;
    const repo = join(scratch, 'served.git');
    const name = (await git(repo, ['index-pack', '--stdin', '--fix-thin'], pack)).split(/\s+/)[1] ?? '';
    const idx = readdirSync(join(repo, 'objects/pack')).find((file) => file === `pack-${name}.idx`);
    const listed = await git(repo, ['show-index'], readFileSync(join(repo, 'objects/pack', idx ?? 'missing')));
    const ids = listed
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '');
    indexed.set(key, ids);
    return ids;
  };

  const auth = { authorization: `Basic ${Buffer.from(`any:${token.token}`).toString('base64')}` };
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let packs = 0;
  let next = 0;
  const worker = async () => {
    while (next < httpInputs && failures.length < 10) {
      const index = next++;
      const input = fuzzInput(seed, index, objects);
      const label = `input ${index} (${input.what})`;
      let status = 0;
      let body = Buffer.alloc(0);
      try {
        const response = await fetch(`${gw.url}/git/acme/git-upload-pack`, {
          method: 'POST',
          body: input.body,
          headers: { 'content-type': 'application/x-git-upload-pack-request', ...auth, ...input.headers },
          signal: AbortSignal.timeout(60_000),
        });
        status = response.status;
        body = Buffer.from(await response.arrayBuffer());
      } catch (error) {
        failures.push(`${label}: no answer (${String(error)})`);
        continue;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${label}: ${status} ${body.toString().slice(0, 200)}`);
      const pack = packOf(body);
      if (status !== 200 || !pack.subarray(0, 4).equals(Buffer.from('PACK'))) continue;
      packs += 1;
      try {
        const ids = await objectsOf(pack);
        const foreign = ids.filter((id) => !served.has(id));
        if (foreign.length > 0) failures.push(`${label}: a pack with ${foreign.join(', ')}`);
      } catch (error) {
        failures.push(`${label}: a pack that does not index against the served objects (${String(error)})`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}; ${packs} packs checked`);
  t.strictSame(failures, [], `${httpInputs} inputs: no 5xx, every answer complete, no foreign object`);
  t.ok(packs > 0, 'some inputs were served a pack (the check ran)');
  t.notOk(statuses.has(500), 'never a 500');

  t.equal((await gw.fetch('/actuator/health')).status, 200, 'the gateway is still healthy');
  const clone = await gitClient(t, token.token).clone(`${gw.url}/git/acme`);
  t.ok(clone.ok, `and still serves a clone: ${clone.stderr}`);
});
