// Done-when of the virtual catalog: after approvals in two marketplaces, Claude Code's own plugin manager adds
// <gateway>/git/catalog.git with one credential and installs a plugin of each.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ledger, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles } from '../../support/upstream.ts';
import {
  claude,
  egressTrap,
  freshHome,
  preflight,
  prepareClaudeCode,
  shown,
  storeCredential,
} from '../claude/claude-code-cli.ts';
import { approveMarketplace, filesWith } from './support.ts';

const name = 'Claude Code adds the virtual catalog and installs a plugin of each of two marketplaces from it';

// npm install (up to 5 minutes) plus the test itself.
t.setTimeout(15 * 60_000);

const prepared = await prepareClaudeCode();
const ready = prepared.ok ? await preflight(prepared.cli) : prepared;

if (!ready.ok) {
  console.log(`# Claude Code catalog test skipped: ${ready.reason}`);
  t.test(name, { skip: ready.reason }, async () => {});
} else {
  const { cli } = ready;
  console.log(`# Claude Code ${cli.version}`);

  t.test(name, async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const root = session(gw, 'root');
    await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
    await approveMarketplace(t, root, 'studio', filesWith('studio', ['gamma'], 'rooted'));
    const revision = (await (await root.get('/api/v1/catalog')).json()) as { sha: string };

    const issued = (await (
      await session(gw, 'alice').post('/api/v1/tokens', { name: 'claude code', scopes: ['catalog'] })
    ).json()) as { token: string };
    const token = issued.token;
    const home = freshHome('catalog');
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    storeCredential(home, gw.url, 'alice', token);
    const trap = await egressTrap();
    t.teardown(() => trap.close());
    const proxy = trap.url;

    const add = await claude(cli, home, ['plugin', 'marketplace', 'add', `${gw.url}/git/catalog.git`], { proxy });
    t.ok(add.ok, `claude plugin marketplace add: ${shown(add, token)}`);
    const plugins = join(home, '.claude', 'plugins');
    t.ok(
      existsSync(join(plugins, 'marketplaces', 'catalog', '.claude-plugin', 'marketplace.json')),
      "registered under the catalog's name",
    );

    for (const [plugin, skill] of [
      ['alpha', 'plugins/alpha/skills/alpha-skill/SKILL.md'],
      ['gamma', 'plugins/gamma/skills/gamma-skill/SKILL.md'],
    ] as const) {
      const install = await claude(cli, home, ['plugin', 'install', `${plugin}@catalog`], { proxy });
      t.ok(install.ok, `claude plugin install ${plugin}@catalog: ${shown(install, token)}`);
      const cached = join(plugins, 'cache', 'catalog', plugin);
      const versions = existsSync(cached) ? readdirSync(cached) : [];
      t.equal(versions.length, 1, `${plugin} is in the plugin cache: ${JSON.stringify(versions)}`);
      const installedSkill = join(cached, versions[0] ?? '-', 'skills', `${plugin}-skill`, 'SKILL.md');
      t.equal(
        existsSync(installedSkill) ? readFileSync(installedSkill, 'utf8') : null,
        marketplaceFiles('x', [plugin])[skill],
        `${plugin}'s skill as approved`,
      );
    }
    const rooted = await claude(cli, home, ['plugin', 'install', 'rooted@catalog'], { proxy });
    t.ok(rooted.ok, `a plugin at its marketplace's root installs too: ${shown(rooted, token)}`);

    const installed = JSON.parse(readFileSync(join(plugins, 'installed_plugins.json'), 'utf8')) as {
      plugins?: Record<string, Array<{ gitCommitSha?: string }>>;
    };
    t.ok(
      installed.plugins?.['alpha@catalog'] && installed.plugins['gamma@catalog'],
      `both recorded: ${JSON.stringify(Object.keys(installed.plugins ?? {}))}`,
    );
    const commit = installed.plugins?.['alpha@catalog']?.[0]?.gitCommitSha;
    if (commit !== undefined) t.equal(commit, revision.sha, 'installed from the catalog revision');
    t.comment(
      `requests beyond loopback attempted by the CLI: ${trap.attempts.length === 0 ? 'none' : trap.attempts.join(', ')}`,
    );

    const uploads = (await ledger(gw, 'upload-pack')).filter((e) => e.marketplace === 'catalog');
    t.ok(
      uploads.length >= 1 && uploads.every((e) => e.principal === 'alice' && e.marketplace_id === null),
      "fetched under the catalog's own name",
    );
  });
}
