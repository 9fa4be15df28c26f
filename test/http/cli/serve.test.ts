import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { isAlive } from '../../../src/adapters/system/data-dir-lock.ts';
import { ledgerProjection } from '../../../src/projections/ledger/ledger.projection.ts';

// The gateway as an operator runs it: `gateway serve` on the embedded PostgreSQL, no database URL.
// `detached` puts it in a process group of its own, as a shell does with a foreground job, so a
// test can signal the group the way Ctrl-C in a terminal does.
const gatewayCommand = (args: string[], env: Record<string, string>, detached = false) =>
  spawn(process.execPath, ['src/main.ts', ...args], {
    env: { ...process.env, GATEWAY_DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });

/** The pino lines of a log at level error (50) or above, and lines of a stack trace. */
const errorLines = (log: string) =>
  log.split('\n').filter((line) => {
    if (/^\s+at |\\n\s+at /.test(line)) return true;
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return false;
    }
  });

const collect = (child: ChildProcess) => {
  const out = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    out.text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out.text += chunk.toString();
  });
  return out;
};

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

async function run(args: string[], env: Record<string, string>) {
  const child = gatewayCommand(args, env);
  const out = collect(child);
  const code = await exited(child);
  return { code, output: out.text };
}

t.test(
  'gateway serve on embedded PostgreSQL: health, one process per data dir, warnings, clean Ctrl-C, CLI',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-serve-'));
    chmodSync(dataDir, 0o755);
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    // The development hatch, warned about at startup.
    const env = {
      GATEWAY_DATA_DIR: dataDir,
      PORT: '0',
      GATEWAY_LOG_LEVEL: 'info',
      GATEWAY_DEV_INSECURE_AUTH: 'true',
    };

    const server = gatewayCommand(['serve'], env, true);
    const out = collect(server);
    t.teardown(() => {
      if (server.exitCode !== null) return;
      // The embedded PostgreSQL has a process group of its own: a killed gateway would leave it running.
      const postmaster = join(dataDir, 'postgres', 'postmaster.pid');
      const pid = existsSync(postmaster) ? Number.parseInt(readFileSync(postmaster, 'utf8'), 10) : NaN;
      server.kill('SIGKILL');
      if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
    });
    let url: string | undefined;
    for (let waited = 0; !url && waited < 60_000 && server.exitCode === null; waited += 100) {
      url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*gateway listening/.exec(out.text)?.[1];
      await new Promise((r) => setTimeout(r, 100));
    }
    t.ok(url, 'the gateway announced where it listens');
    t.match(
      out.text,
      /"level":40,[^\n]*"msg":"gateway\.dev-insecure-auth is on: any caller can act as anyone via the X-Dev-User header[^\n]*never in production"/,
    );
    const health = await fetch(`${url}/actuator/health`);
    t.equal(health.status, 200);
    t.match(await health.json(), {
      status: 'UP',
      components: { database: { status: 'UP' }, eventStore: { backend: 'postgres' } },
    });
    t.ok(existsSync(join(dataDir, 'postgres', 'PG_VERSION')), 'PostgreSQL initialised under <data-dir>/postgres');

    const second = await run(['serve'], env);
    t.equal(second.code, 1, 'a second gateway on the same data dir is refused');
    t.match(second.output, new RegExp(`another gateway process \\(pid ${server.pid}\\) is using the data directory`));

    const status = await run(['projections', 'status'], env);
    t.equal(status.code, 0, "status reads the running gateway's database");
    t.match(status.output, new RegExp(`^ledger\\s+${ledgerProjection.version}\\s+\\d+\\s+\\d+\\s+0\\s+yes$`, 'm'));

    const rebuildWhileRunning = await run(['projections', 'rebuild'], env);
    t.equal(rebuildWhileRunning.code, 1);
    t.match(rebuildWhileRunning.output, /stop the gateway first/);

    const postmasterPid = Number.parseInt(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
    // Ctrl-C: SIGINT to the whole foreground process group; only the gateway is in it.
    process.kill(-server.pid!, 'SIGINT');
    t.equal(await exited(server), 0, 'Ctrl-C ends the gateway cleanly');
    t.match(out.text, /gateway stopped/);
    t.same(errorLines(out.text), [], 'no error line and no stack trace on a clean stop');
    t.notOk(isAlive(postmasterPid), 'the embedded PostgreSQL stopped with it');
    t.notOk(existsSync(join(dataDir, 'gateway.pid')), 'the data directory is released');

    const rebuild = await run(['projections', 'rebuild'], env);
    t.equal(rebuild.code, 0, rebuild.output);
    t.match(rebuild.output, /rebuilt \d+ read models from \d+ events/);
  },
);

t.test('a bad configuration refuses startup with one line naming the key', async (t) => {
  const result = await run(['serve'], { GATEWAY_WEBHOOKS_POLL_INTERVAL: '5 seconds', GATEWAY_DATA_DIR: t.testdir() });
  t.equal(result.code, 1);
  t.match(result.output, /^gateway: configuration refused: gateway\.webhooks\.poll-interval: .*5 seconds/m);
  const both = await run(['serve'], {
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_OIDC_ISSUER: 'https://idp.example.test',
    GATEWAY_OIDC_CLIENT_ID: 'gw',
    GATEWAY_DATA_DIR: t.testdir(),
  });
  t.equal(both.code, 1);
  t.match(both.output, /gateway\.dev-insecure-auth/);
});

t.test('--help lists the commands', async (t) => {
  const result = await run(['--help'], {});
  t.equal(result.code, 0);
  t.match(result.output, /serve[\s\S]*projections rebuild[\s\S]*projections status/);
});

t.test('gateway config lists every key and marks those not built yet', async (t) => {
  const result = await run(['config'], {});
  t.equal(result.code, 0);
  t.match(
    result.output,
    /^gateway\.storage\.object-store\.bucket = unset {2}\[GATEWAY_STORAGE_OBJECT_STORE_BUCKET\]$/m,
    'the object-store backend is built',
  );
  t.match(result.output, /^gateway\.estate\.file = unset {2}\[GATEWAY_ESTATE_FILE\]$/m, 'the estate file is built');
  t.match(result.output, /^gateway\.storage\.backend = filesystem {2}\[GATEWAY_STORAGE_BACKEND\]$/m);
  t.match(
    result.output,
    /^gateway\.audit-export\.lag = 5s {2}\[GATEWAY_AUDIT_EXPORT_LAG\]$/m,
    'a built key has no mark',
  );
  t.match(result.output, /^gateway\.base-url = http:\/\/127\.0\.0\.1:<port> {2}\[GATEWAY_BASE_URL\]$/m);
});

t.test('gateway serve on a port already taken: one line naming the port and PORT, nothing started', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const port = (holder.address() as AddressInfo).port;
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-port-taken-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { code, output } = await run(['serve'], { GATEWAY_DATA_DIR: dataDir, PORT: String(port) });
  t.equal(code, 1);
  const lines = output.trim().split('\n');
  t.equal(
    lines.at(-1),
    `gateway: port ${port} is already in use (127.0.0.1:${port}): stop what listens there, or choose another port with PORT (PORT=${port + 1} npm start) or gateway.server.port`,
  );
  t.same(errorLines(output), [], 'no stack trace, no error log line');
  t.notOk(existsSync(join(dataDir, 'postgres')), 'no database started');
  t.notOk(existsSync(join(dataDir, 'local-idp', 'admin.password.json')), 'no password made');
});
