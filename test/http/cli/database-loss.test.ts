import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { runningEmbeddedUrl } from '../../../src/adapters/postgres/database.ts';
import { isAlive } from '../../../src/adapters/system/data-dir-lock.ts';
import {
  dataDirFor,
  delay,
  devClient,
  postmasterPid,
  postmasterPort,
  serve,
  type Answer,
  type Served,
} from './serve-process.ts';

// Kill -9 of the embedded PostgreSQL's postmaster while `gateway serve` runs. While
// it is down, the API answers 503 database-unavailable with Retry-After and /git a plain-text 503; the
// gateway restarts the server (crash recovery) on the same port, and resumes on its own: health UP,
// the leader lock and the LISTEN connection taken again, state-changing requests recorded on the ledger.

const env = { GATEWAY_LOG_LEVEL: 'info', GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;

async function health(url: string): Promise<string> {
  try {
    const response = await fetch(`${url}/actuator/health`);
    return ((await response.json()) as { status: string }).status;
  } catch {
    return 'unreachable';
  }
}

async function gitProbe(url: string, token: string): Promise<Answer> {
  const response = await fetch(`${url}/git/team.git/info/refs?service=git-upload-pack`, {
    headers: { authorization: basic(token) },
  });
  return { status: response.status, headers: response.headers, text: await response.text(), body: null };
}

type Outage = { api: Answer | null; git: Answer | null; others: number[]; recoveredMs: number };

/**
 * Kills the postmaster and probes the API and /git in tight loops until it is restarted and health is UP; returns
 * the first 503 answer of each (null when the outage was too short to see one) and the time to recover.
 */
async function killAndProbe(gw: Served, api: ReturnType<typeof devClient>, token: string): Promise<Outage> {
  const outage: Outage = { api: null, git: null, others: [], recoveredMs: 0 };
  // Health answers from a probe up to a second old, so UP alone may predate the kill: recovered is the
  // supervisor's restart logged once more than before, and health UP after it.
  const restarts = () => gw.output().split('the embedded PostgreSQL is back after').length;
  const restartsBefore = restarts();
  const pid = postmasterPid(gw.dataDir);
  const killedAt = performance.now();
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await delay(5);
  let down = true;
  const probe = async (send: () => Promise<Answer>, keep: (answer: Answer) => void) => {
    while (down) {
      const answer = await send().catch(() => null);
      if (answer && answer.status >= 500) {
        if (answer.status === 503) keep(answer);
        else outage.others.push(answer.status);
      }
    }
  };
  const probes = [
    probe(
      () => api('GET', '/api/v1/marketplaces'),
      (answer) => (outage.api ??= answer),
    ),
    probe(
      () => gitProbe(gw.url, token),
      (answer) => (outage.git ??= answer),
    ),
  ];
  try {
    const deadline = killedAt + 60_000;
    while (restarts() === restartsBefore || (await health(gw.url)) !== 'UP') {
      if (performance.now() > deadline) throw new Error(`health did not return to UP:\n${gw.output().slice(-3000)}`);
      await delay(50);
    }
    outage.recoveredMs = Math.round(performance.now() - killedAt);
  } finally {
    down = false;
    await Promise.all(probes);
  }
  return outage;
}

/** The sessions of the gateway on its database, by what they last ran and their application name. */
async function sessions(dataDir: string): Promise<{ listening: number; leader: number }> {
  const client = new pg.Client({ connectionString: runningEmbeddedUrl(dataDir)! });
  await client.connect();
  try {
    const { rows } = await client.query<{ listening: number; leader: number }>(
      `select count(*) filter (where query ilike 'listen %')::int as listening,
              count(*) filter (where application_name = 'gateway-leader')::int as leader
         from pg_stat_activity where pid <> pg_backend_pid()`,
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}

t.test('kill -9 of the embedded PostgreSQL: 503 while it is down, then the gateway resumes on its own', async (t) => {
  const dataDir = dataDirFor(t);
  const gw = await serve(t, dataDir, env);
  const api = devClient(gw.url, 'root');
  t.equal((await api('POST', '/api/v1/marketplaces', { name: 'team', origin: 'hosted' })).status, 201);
  const created = await api('POST', '/api/v1/tokens', { name: 'fetching' });
  t.equal(created.status, 201, created.text);
  const token = (created.body as { token: string }).token;
  t.equal((await gitProbe(gw.url, token)).status, 404, 'before: nothing approved, so nothing served');
  const port = postmasterPort(dataDir);

  // The outage of one kill may be too short to catch both answers: kill again, a bounded number of times.
  let outage: Outage | null = null;
  const seen: { api: Answer | null; git: Answer | null } = { api: null, git: null };
  for (let kill = 1; kill <= 5 && !(seen.api && seen.git); kill++) {
    outage = await killAndProbe(gw, api, token);
    t.comment(`kill ${kill}: recovered in ${outage.recoveredMs} ms`);
    t.same(outage.others, [], 'no 500 (or any other 5xx than 503) while the database is down');
    seen.api ??= outage.api;
    seen.git ??= outage.git;
  }
  t.ok(seen.api, 'an API request was answered while the database was down');
  t.match(seen.api?.headers.get('content-type'), /^application\/problem\+json/);
  t.match(seen.api?.body, {
    type: `${gw.url}/problems/database-unavailable`,
    title: 'Database unavailable',
    status: 503,
    instance: '/api/v1/marketplaces',
  });
  t.equal(seen.api?.headers.get('retry-after'), '5', 'the API answer says when to retry');
  t.ok(seen.git, 'a /git request was answered while the database was down');
  t.equal(seen.git?.status, 503);
  t.match(seen.git?.headers.get('content-type'), /^text\/plain/);
  t.match(seen.git?.text, /cannot reach its database/);
  t.equal(seen.git?.headers.get('retry-after'), '5');
  t.equal(postmasterPort(dataDir), port, 'restarted on the same port, so the pool URL stayed valid');
  t.not(postmasterPid(dataDir), Number.NaN);
  t.match(gw.output(), /the embedded PostgreSQL killed by SIGKILL: restarting it \(crash recovery\)/);
  t.match(gw.output(), /the embedded PostgreSQL is back after \d+ ms/);
  t.comment(`recovered in ${outage!.recoveredMs} ms`);

  // Resumed: a change is decided, projected (the answer waits for the read models) and on the ledger.
  let after: Answer | null = null;
  for (let attempt = 0; attempt < 100 && after?.status !== 201; attempt++) {
    after = await api('POST', '/api/v1/marketplaces', { name: 'after', origin: 'hosted' });
    if (after.status !== 201) await delay(200);
  }
  t.equal(after?.status, 201, `a state-changing request works again: ${after?.text}`);
  const audit = await api('GET', '/api/v1/audit?marketplace=after');
  t.equal(audit.status, 200, audit.text);
  t.ok(
    (audit.body as { entries: { marketplace: string }[] }).entries.some((entry) => entry.marketplace === 'after'),
    'its ledger entry is there',
  );
  t.ok(gw.output().split('leader lock acquired').length > 2, 'the leader lock was taken again');
  let resumed = { listening: 0, leader: 0 };
  for (let attempt = 0; attempt < 100 && !(resumed.listening > 0 && resumed.leader > 0); attempt++) {
    resumed = await sessions(dataDir);
    if (!(resumed.listening > 0 && resumed.leader > 0)) await delay(100);
  }
  t.ok(resumed.listening > 0, 'the LISTEN connection is back');
  t.equal(resumed.leader, 1, 'the leader lock is held again, on one connection');
  t.equal(gw.child.exitCode, null, 'the gateway kept running');
});

/** Binds `port` on loopback as soon as it is free (the dead postmaster may hold it for a moment). */
async function occupy(port: number): Promise<Server> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return server;
    await delay(2);
  }
  throw new Error(`port ${port} never became free`);
}

t.test('a database that cannot be restarted ends the gateway with one clear message', async (t) => {
  const dataDir = dataDirFor(t);
  const gw = await serve(t, dataDir, env);
  const api = devClient(gw.url, 'root');
  t.equal((await api('POST', '/api/v1/marketplaces', { name: 'kept', origin: 'hosted' })).status, 201);
  const port = postmasterPort(dataDir);
  const pid = postmasterPid(dataDir);

  // Another program takes the port the moment the postmaster is gone: every restart on it fails.
  process.kill(pid, 'SIGKILL');
  const squatter = await occupy(port);
  t.teardown(() => squatter.close());
  const code = await gw.exited;
  t.equal(code, 1, 'the gateway exits non-zero, so that a supervisor restarts it');
  t.match(
    gw.output(),
    /"level":60,[^\n]*the embedded PostgreSQL could not be restarted: 5 attempts over \d+ s failed \(last: [^\n]*\); exiting so that a supervisor restarts the gateway/,
    'one fatal log line says why',
  );
  t.match(gw.output(), /^gateway: the embedded PostgreSQL could not be restarted: 5 attempts over \d+ s failed/m);
  t.notOk(existsSync(join(dataDir, 'gateway.pid')), 'the data directory is released for the next start');

  // What a supervisor does next: start it again, on a port that is free; the data survived the crash.
  const again = await serve(t, dataDir, env);
  const listed = await devClient(again.url, 'root')('GET', '/api/v1/marketplaces');
  t.equal(listed.status, 200);
  t.match(listed.body, [{ name: 'kept' }], 'what was recorded before the crash is there');
  t.not(postmasterPort(dataDir), port);
});
