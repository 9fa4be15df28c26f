import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { isAlive } from '../../../src/adapters/system/data-dir-lock.ts';

// The gateway as an operator runs it: `gateway serve` on the embedded PostgreSQL, no database URL.
const gatewayCommand = (args: string[], env: Record<string, string>) =>
  spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { ...process.env, GATEWAY_DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });

const collect = (child: ChildProcess) => {
  const out = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => { out.text += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { out.text += chunk.toString(); });
  return out;
};

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => {
  if (child.exitCode !== null) resolve(child.exitCode);
  else child.once('exit', (code) => resolve(code));
});

async function run(args: string[], env: Record<string, string>) {
  const child = gatewayCommand(args, env);
  const out = collect(child);
  const code = await exited(child);
  return { code, output: out.text };
}

t.test('gateway serve on embedded PostgreSQL: health, one process per data dir, clean SIGTERM, CLI', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-serve-'));
  chmodSync(dataDir, 0o755);
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { GATEWAY_DATA_DIR: dataDir, PORT: '0', GATEWAY_LOG_LEVEL: 'info' };

  const server = gatewayCommand(['serve'], env);
  const out = collect(server);
  t.teardown(() => { if (server.exitCode === null) server.kill('SIGKILL'); });
  let url: string | undefined;
  for (let waited = 0; !url && waited < 60_000 && server.exitCode === null; waited += 100) {
    url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*gateway listening/.exec(out.text)?.[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(url, 'the gateway announced where it listens');
  const health = await fetch(`${url}/actuator/health`);
  t.equal(health.status, 200);
  t.match(await health.json(), { status: 'UP', components: { database: { status: 'UP' }, eventStore: { backend: 'postgres' } } });
  t.ok(existsSync(join(dataDir, 'postgres', 'PG_VERSION')), 'PostgreSQL initialised under <data-dir>/postgres');

  const second = await run(['serve'], env);
  t.equal(second.code, 1, 'a second gateway on the same data dir is refused');
  t.match(second.output, new RegExp(`another gateway process \\(pid ${server.pid}\\) is using the data directory`));

  const status = await run(['projections', 'status'], env);
  t.equal(status.code, 0, 'status reads the running gateway\'s database');
  t.match(status.output, /^ledger\s+1\s+\d+\s+\d+\s+0\s+yes$/m);

  const rebuildWhileRunning = await run(['projections', 'rebuild'], env);
  t.equal(rebuildWhileRunning.code, 1);
  t.match(rebuildWhileRunning.output, /stop the gateway first/);

  const postmasterPid = Number.parseInt(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
  server.kill('SIGTERM');
  t.equal(await exited(server), 0, 'SIGTERM ends the gateway cleanly');
  t.match(out.text, /gateway stopped/);
  t.notOk(isAlive(postmasterPid), 'the embedded PostgreSQL stopped with it');
  t.notOk(existsSync(join(dataDir, 'gateway.pid')), 'the data directory is released');

  const rebuild = await run(['projections', 'rebuild'], env);
  t.equal(rebuild.code, 0, rebuild.output);
  t.match(rebuild.output, /rebuilt \d+ read models from \d+ events/);
});

t.test('a bad configuration refuses startup with one line naming the key', async (t) => {
  const result = await run(['serve'], { GATEWAY_WEBHOOKS_POLL_INTERVAL: '5 seconds', GATEWAY_DATA_DIR: t.testdir() });
  t.equal(result.code, 1);
  t.match(result.output, /^gateway: configuration refused: gateway\.webhooks\.poll-interval: .*5 seconds/m);
  const both = await run(['serve'], { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_OIDC_ISSUER: 'https://idp.example.test', GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_DATA_DIR: t.testdir() });
  t.equal(both.code, 1);
  t.match(both.output, /gateway\.dev-insecure-auth/);
});

t.test('--help lists the commands', async (t) => {
  const result = await run(['--help'], {});
  t.equal(result.code, 0);
  t.match(result.output, /serve[\s\S]*projections rebuild[\s\S]*projections status/);
});
