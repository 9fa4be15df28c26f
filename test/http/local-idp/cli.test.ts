// A single local account `admin`, whose password is generated at first start, printed
// once, stored only as a hash under the data directory, and changeable with `gateway local-idp
// reset-password`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { testDatabase } from '../../support/database.ts';
import { delay } from '../cli/serve-process.ts';
import { bannerPassword, cli, signIn, startFirstRun } from './first-run.ts';

t.test('`gateway serve` prints the password once on stderr, never in its log, and not at the next start', async (t) => {
  const { url } = await testDatabase(t);
  const dataDir = t.testdir();
  const env = { GATEWAY_DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir, PORT: '0', GATEWAY_LOG_LEVEL: 'debug' };
  const { spawn } = await import('node:child_process');
  const serveOnce = async () => {
    const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    for (let waited = 0; !/gateway listening/.test(stdout) && waited < 60_000; waited += 100) {
      if (child.exitCode !== null) throw new Error(`serve exited:\n${stdout}\n${stderr}`);
      await delay(100);
    }
    const gatewayUrl = /"url":"(http:\/\/[^"]+)"[^\n]*gateway listening/.exec(stdout)?.[1];
    child.kill('SIGTERM');
    await exited;
    return { stdout, stderr, gatewayUrl };
  };

  const first = await serveOnce();
  t.ok(first.gatewayUrl, 'it listened');
  const password = bannerPassword(first.stderr);
  t.ok(password, 'the banner on stderr shows the password');
  const everything = first.stdout + first.stderr;
  t.equal(everything.split(password!).length - 1, 1, 'the password appears exactly once in all the output');
  t.notOk(first.stdout.includes(password!), 'never in the JSON log (stdout)');
  t.notMatch(first.stderr, /oidc-provider|WARNING|NOTICE/, 'no development warning of oidc-provider');
  t.match(first.stdout, /built-in sign-in at \/local-idp; its generated password is printed once on stderr/);
  t.notOk(readFileSync(join(dataDir, 'local-idp', 'admin.password.json'), 'utf8').includes(password!));

  const second = await serveOnce();
  t.equal(bannerPassword(second.stderr), undefined, 'no password at the second start');
  t.notOk((second.stdout + second.stderr).includes(password!), 'nor the first one');
  t.match(second.stdout, /password set earlier/);
});

t.test('`gateway local-idp reset-password` prints a new password once; the old one stops working', async (t) => {
  const run = await startFirstRun(t);
  const old = run.password!;
  t.ok((await signIn(run.baseUrl, 'admin', old)).browser.sessionId, 'the first password signs in');

  // No running gateway is needed: only the data directory is read and written (no database named here).
  const reset = await cli(['local-idp', 'reset-password'], {
    GATEWAY_DATA_DIR: run.config.dataDir,
    GATEWAY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  });
  t.equal(reset.code, 0, reset.stderr);
  const fresh = reset.stdout.trim();
  t.match(fresh, /^[A-Za-z0-9_-]{24}$/, 'a new password on stdout');
  t.not(fresh, old);
  t.match(reset.stderr, /shown this once/);
  t.notOk(readFileSync(join(run.config.dataDir, 'local-idp', 'admin.password.json'), 'utf8').includes(fresh));

  const withOld = await signIn(run.baseUrl, 'admin', old);
  t.equal(withOld.refused?.status, 401, 'the old password is refused (by the running gateway, at once)');
  t.notOk(withOld.browser.sessionId);
  const withNew = await signIn(run.baseUrl, 'admin', fresh);
  t.ok(withNew.browser.sessionId, 'the new one signs in');
  t.equal((await withNew.browser.getJson<{ username: string }>('/api/v1/me')).body.username, 'admin');
});
