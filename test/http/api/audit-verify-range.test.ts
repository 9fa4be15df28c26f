// decision 356: `gateway audit verify` vouches for a whole export only. A file that ends before the newest
// signed checkpoint (its last entries cut off) or holds no entry at all does not verify, unless the operator
// states the range they expected (--through N, or --partial). The real CLI on files downloaded from a gateway.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
  GATEWAY_AUDIT_EXPORT_CHECKPOINT_INTERVAL: '100ms',
};

/** The real CLI, with no database in its environment. */
function cli(args: string[]) {
  const child = spawn(process.execPath, ['src/main.ts', ...args], {
    env: { ...process.env, GATEWAY_CONFIG: '', GATEWAY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, out })),
  );
}

t.test('a truncated or empty export does not verify unless its range is stated', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  for (let i = 0; i < 8; i++)
    t.equal((await root.post('/api/v1/roles', { principal: `watcher-${i}`, role: 'auditor' })).status, 201);
  const head = (await root.get('/api/v1/audit?limit=1')).body.entries[0].id as number;
  await eventually(async () => {
    const list = (await root.get('/api/v1/audit/checkpoints')).body.checkpoints as Array<{ entryId: number }>;
    return list[0]?.entryId === head ? list : null;
  }, 10_000);

  const dir = t.testdir();
  const key = join(dir, 'key.jwk');
  const checkpoints = join(dir, 'checkpoints.json');
  writeFileSync(key, (await root.get('/api/v1/audit/public-key')).text);
  writeFileSync(checkpoints, (await root.get('/api/v1/audit/checkpoints')).text);
  const newest = Math.max(...JSON.parse(readFileSync(checkpoints, 'utf8')).checkpoints.map((c: any) => c.entryId));
  const lines = (await root.get('/api/v1/audit/export?limit=10000')).text.split('\n').filter((l) => l.trim() !== '');
  t.ok(lines.length >= newest, `the export holds the signed head (${lines.length} lines, head ${newest})`);
  const upTo = (last: number) => lines.filter((l) => (JSON.parse(l) as { id: number }).id <= last);
  const file = (name: string, kept: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, kept.map((l) => `${l}\n`).join(''));
    return path;
  };
  const verify = (path: string, ...more: string[]) =>
    cli(['audit', 'verify', path, '--public-key', key, '--checkpoints', checkpoints, ...more]);

  const whole = file('whole.ndjson', upTo(newest));
  const ok = await verify(whole);
  t.equal(ok.code, 0, ok.out);
  t.match(ok.out, /chain intact over \d+ entries/);

  const lastCut = file('last-cut.ndjson', upTo(newest - 1));
  const cut = await verify(lastCut);
  t.equal(cut.code, 1, 'the file missing its last entry does not verify');
  t.match(
    cut.out,
    `the file ends at entry ${newest - 1}, but a signed checkpoint names entry ${newest}: entries ${newest}..${newest} are missing`,
  );
  t.match(cut.out, `--through ${newest - 1}`, 'and says how to state the range');

  const front = file('front.ndjson', upTo(4));
  const short = await verify(front);
  t.equal(short.code, 1, 'the first four entries only: does not verify');
  t.match(short.out, `entries 5..${newest} are missing`);

  const empty = file('empty.ndjson', []);
  for (const more of [[], ['--partial']]) {
    const none = await verify(empty, ...more);
    t.equal(none.code, 1, `an empty file never verifies ${more.join(' ')}`);
    t.match(none.out, /holds no ledger entry/);
  }
  const bare = await cli(['audit', 'verify', empty]);
  t.equal(bare.code, 1, 'an empty file without checkpoints does not verify either');

  // Stated ranges.
  const through = await verify(lastCut, '--through', String(newest - 1));
  t.equal(through.code, 0, through.out);
  t.match(through.out, `ends at entry ${newest - 1} as stated (--through)`);
  const wrongThrough = await verify(lastCut, '--through', String(newest));
  t.equal(wrongThrough.code, 1, '--through names an entry the file does not end at');
  t.match(wrongThrough.out, `the file ends at entry ${newest - 1}, not at entry ${newest}`);
  const partial = await verify(front, '--partial');
  t.equal(partial.code, 0, partial.out);
  t.match(partial.out, /--partial/);
  t.equal((await verify(whole, '--through', String(newest))).code, 0, 'the whole file, through its last entry');

  const both = await verify(whole, '--through', '3', '--partial');
  t.equal(both.code, 2, '--through and --partial exclude each other');
  const notANumber = await verify(whole, '--through', 'head');
  t.equal(notANumber.code, 1, '--through takes an entry id');
  t.match(notANumber.out, /--through takes an entry id/);

  // A broken chain is still named first, whatever the range says.
  const tampered = upTo(newest).map((l, i) => (i === 2 ? l.replace(/"detail":"/, '"detail":"x') : l));
  const broken = await verify(file('tampered.ndjson', tampered), '--partial');
  t.equal(broken.code, 1);
  t.match(broken.out, /chain broken at entry 3/);
});
