// `gateway estate check FILE` on the command line validates a file without a running gateway (for
// CI of the repository that holds it). "Unknown keys and bad values fail the whole run before anything is
// applied, with the file's line numbers in the message."
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';

/** The CLI as CI runs it; the database URL points nowhere and the data dir does not exist: neither is used. */
function gateway(t: Test, args: string[], env: Record<string, string> = {}) {
  const dir = scratch(t);
  const dataDir = join(dir, 'data');
  const child = spawn(process.execPath, ['src/main.ts', ...args], {
    env: {
      ...process.env,
      GATEWAY_CONFIG: '',
      GATEWAY_ALLOWED_URL_SCHEMES: '',
      GATEWAY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      GATEWAY_DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string; dataDirCreated: boolean }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr, dataDirCreated: existsSync(dataDir) })),
  );
}

function scratch(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'estate-check-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function file(t: Test, text: string, name = 'estate.yaml'): string {
  const path = join(scratch(t), name);
  writeFileSync(path, text);
  return path;
}

const valid = `marketplaces:
  - name: acme-tools
    url: https://github.com/acme/claude-tools.git
    sync: { mode: scheduled }
  - name: internal
    origin: hosted
grants:
  - principal: release-bot
    role: approver
    marketplace: acme-tools
webhooks:
  - url: https://hooks.example.test/gateway
    events: [marketplace.snapshot.approved]
    secret: env:HOOK_SECRET
audit-sinks:
  - name: siem
    url: https://siem.example.test/in
    secret: file:/run/secrets/siem
`;

t.test('a valid file: exit 0 and one summary line, no database, no data directory, no secret read', async (t) => {
  const path = file(t, valid);
  const result = await gateway(t, ['estate', 'check', path]);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stdout, `${path}: valid: 2 marketplace(s), 1 grant(s), 1 webhook(s), 1 audit sink(s)\n`);
  t.equal(result.stderr, '');
  t.notOk(result.dataDirCreated, 'nothing was started: the data directory was never created');
});

t.test('a bad file: exit 1 with every problem as <file>:<line>: <message>, no secret echoed', async (t) => {
  const path = file(
    t,
    `marketplaces:
  - name: acme
    url: https://deploy:s3cr3t-pass@git.example.test/acme.git
    colour: blue
webhooks:
  - url: https://hooks.example.test/gateway
    events: [marketplace.snapshot.approved]
    secret: whsec_dGhpcy1pcy1hLXNlY3JldA
`,
  );
  const result = await gateway(t, ['estate', 'check', path]);
  t.equal(result.code, 1);
  t.equal(result.stdout, '');
  t.equal(
    result.stderr,
    [
      `${path}:3: marketplace: 'url': the url carries user information; credentials never go in URLs`,
      `${path}:4: marketplace: unknown key 'colour'; allowed: name, origin, url, ref, sync, pushPolicy`,
      `${path}:8: webhook: 'secret': a secret is given as a reference, env:NAME or file:/path, never as its value`,
      '',
    ].join('\n'),
  );
  t.notOk(/s3cr3t|whsec_|dGhpcy/.test(result.stderr), 'neither secret value appears');
});

t.test('the URL schemes are gateway.allowed-url-schemes from the usual sources, else http and https', async (t) => {
  const path = file(t, 'audit-sinks:\n  - name: siem\n    url: http://siem.example.test/in\n');
  t.equal((await gateway(t, ['estate', 'check', path])).code, 0, 'http is allowed by default');
  const byEnv = await gateway(t, ['estate', 'check', path], { GATEWAY_ALLOWED_URL_SCHEMES: 'https' });
  t.equal(byEnv.code, 1);
  t.equal(
    byEnv.stderr,
    `${path}:3: audit sink: 'url': URL scheme 'http' is not allowed; allowed: https (gateway.allowed-url-schemes)\n`,
  );
  const config = file(t, 'gateway:\n  allowed-url-schemes: [https]\n', 'gateway.yaml');
  const byFile = await gateway(t, ['estate', 'check', path, '--config', config]);
  t.equal(byFile.code, 1);
  t.match(byFile.stderr, /allowed: https \(gateway\.allowed-url-schemes\)/);
  const byGatewayConfig = await gateway(t, ['estate', 'check', path], { GATEWAY_CONFIG: config });
  t.equal(byGatewayConfig.code, 1, '$GATEWAY_CONFIG is read too');
});

t.test('an unreadable file and a missing argument fail', async (t) => {
  const missing = join(scratch(t), 'nope.yaml');
  const unreadable = await gateway(t, ['estate', 'check', missing]);
  t.equal(unreadable.code, 1);
  t.equal(unreadable.stderr, `${missing}: cannot be read (ENOENT)\n`);
  const usage = await gateway(t, ['estate', 'check']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /^gateway: usage: gateway estate check FILE/);
  const help = await gateway(t, ['--help']);
  t.match(help.stdout, /estate check FILE +validate an estate file/);
});
