// The managed settings restrict the real CLI (docs/clients.md): the document the gateway answers is
// loaded as Claude Code's managed settings; a marketplace outside the gateway is refused, and the catalog (and a
// chosen marketplace) install through the facade.
//
// Claude Code 2.1.332 reads managed settings on Linux from /etc/claude-code only (managed-settings.json and
// managed-settings.d/*.json; no environment variable or flag moves it). The test writes one drop-in file of its
// own there when it runs as root, and removes it (and the folders it created) at teardown; otherwise it is skipped.
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { expectJson, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveRepos, serveUpstream } from '../../support/upstream.ts';
import { claude, egressTrap, freshHome, shown, storeCredential, type ClaudeCode } from '../claude/claude-code-cli.ts';
import { approveMarketplace } from '../catalog/support.ts';

const name = 'the managed settings admit the gateway alone: an outside marketplace is refused, the catalog installs';
const managedDir = '/etc/claude-code';
const dropInDir = join(managedDir, 'managed-settings.d');

t.setTimeout(10 * 60_000);

/** The devDependency's native binary (package.json pins 2.1.332). */
function localCli(): { ok: true; cli: ClaudeCode } | { ok: false; reason: string } {
  const root = resolve('node_modules/@anthropic-ai/claude-code');
  const command = join(root, 'bin', 'claude.exe');
  if (!existsSync(command) || statSync(command).size < 64 * 1024)
    return { ok: false, reason: `${command} is missing or the placeholder (npm install did not run its postinstall)` };
  if (process.getuid?.() !== 0) return { ok: false, reason: `${managedDir} is writable by root only` };
  return { ok: true, cli: { version: 'devDependency', command, prefixArgs: [], root } };
}

/** Writes `settings` as a managed drop-in of this run, removed (with any folder it made) at the test's end. */
function installManaged(t: Test, settings: unknown): string {
  const made = [managedDir, dropInDir].filter((dir) => !existsSync(dir));
  mkdirSync(dropInDir, { recursive: true });
  const file = join(dropInDir, `gateway-test-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(settings, null, 2));
  t.teardown(() => {
    rmSync(file, { force: true });
    for (const dir of made.reverse()) if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
  });
  return file;
}

const ready = localCli();
if (!ready.ok) {
  console.log(`# managed settings with Claude Code skipped: ${ready.reason}`);
  t.test(name, { skip: ready.reason }, async () => {});
} else {
  const { cli } = ready;
  t.test(name, async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const root = session(gw, 'root');
    await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
    const alice = session(gw, 'alice');
    const issued = await expectJson<{ token: string }>(
      t,
      await alice.post('/api/v1/tokens', { name: 'claude code', scopes: ['catalog', 'acme'] }),
      201,
    );
    const token = issued.token;

    // Outside the gateway: a real marketplace on another host name (localhost, not 127.0.0.1), counted.
    const outsideRepo = await serveUpstream(t, marketplaceFiles('outside', ['beta']), 'outside');
    const outside = await serveRepos(t, dirname(outsideRepo.bare));
    const outsideUrl = `http://localhost:${outside.port}/outside.git`;
    const trap = await egressTrap();
    t.teardown(() => trap.close());
    const proxy = trap.url;

    // Without managed settings the outside marketplace is reachable: the refusal below is the settings' doing.
    const control = freshHome('managed-control');
    t.teardown(() => rmSync(control, { recursive: true, force: true }));
    const free = await claude(cli, control, ['plugin', 'marketplace', 'add', outsideUrl], { proxy });
    t.ok(free.ok, `without managed settings the outside marketplace is added: ${shown(free, token)}`);
    const hitsBefore = outside.hits();
    t.ok(hitsBefore > 0, 'and it was fetched');

    const settings = await expectJson<unknown>(
      t,
      await alice.get('/api/v1/clients/managed-settings?marketplaces=catalog,acme'),
      200,
    );
    const file = installManaged(t, settings);
    t.comment(`managed settings at ${file}: ${JSON.stringify(settings)}`);

    const home = freshHome('managed');
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    storeCredential(home, gw.url, 'alice', token);

    const refused = await claude(cli, home, ['plugin', 'marketplace', 'add', outsideUrl], { proxy });
    t.notOk(refused.ok, `the outside marketplace is refused: ${shown(refused, token)}`);
    t.match(refused.stderr, /blocked by enterprise policy/, 'by the managed policy');
    t.match(refused.stderr, 'hostPattern:^127\\.0\\.0\\.1$', "naming the gateway's host as the one allowed");
    t.equal(outside.hits(), hitsBefore, 'before any request reaches it');

    // Outside an interactive session the CLI registers nothing by itself: add each marketplace the document
    // declares, by the URL it declares (the gateway's host, so the allowlist admits it), through the facade.
    const declared = (settings as { extraKnownMarketplaces: Record<string, { source: { url: string } }> })
      .extraKnownMarketplaces;
    for (const [marketplace, entry] of Object.entries(declared)) {
      const add = await claude(cli, home, ['plugin', 'marketplace', 'add', entry.source.url], { proxy });
      t.ok(add.ok, `claude plugin marketplace add ${entry.source.url}: ${shown(add, token)}`);
      t.match(add.stdout, new RegExp(`marketplace: ${marketplace}\\b`), `registered as ${marketplace}`);
    }
    for (const [plugin, marketplace] of [
      ['alpha', 'catalog'],
      ['alpha', 'acme'],
    ] as const) {
      const install = await claude(cli, home, ['plugin', 'install', `${plugin}@${marketplace}`], { proxy });
      t.ok(install.ok, `claude plugin install ${plugin}@${marketplace}: ${shown(install, token)}`);
      const cached = join(home, '.claude', 'plugins', 'cache', marketplace, plugin);
      t.ok(existsSync(cached) && readdirSync(cached).length === 1, `${plugin}@${marketplace} is in the plugin cache`);
    }
    const list = await claude(cli, home, ['plugin', 'marketplace', 'list'], { proxy });
    t.comment(shown(list, token));
    t.notMatch(list.stdout, /outside/, 'the outside marketplace is not known');
  });
}
