// Claude Code's own plugin manager against the facade: `claude plugin marketplace add <gateway>/git/<name>.git`
// then `claude plugin install <plugin>@<marketplace>`, with the personal access token in git's credential store.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';
import {
  claude,
  egressTrap,
  freshHome,
  preflight,
  prepareClaudeCode,
  shown,
  storeCredential,
} from './claude-code-cli.ts';

const name = 'Claude Code adds the facade as a marketplace and installs a plugin from it';

// npm install (up to 5 minutes) plus the test itself; the runner's default of 300 s is too short for a cold cache.
t.setTimeout(15 * 60_000);

const prepared = await prepareClaudeCode();
const ready = prepared.ok ? await preflight(prepared.cli) : prepared;

if (!ready.ok) {
  console.log(`# Claude Code plugin manager test skipped: ${ready.reason}`);
  t.test(name, { skip: ready.reason }, async () => {});
} else {
  const { cli } = ready;
  console.log(
    `# Claude Code ${cli.version} (${cli.command}${cli.prefixArgs.length > 0 ? ` ${cli.prefixArgs.join(' ')}` : ''})`,
  );

  // Both history modes serve what Claude Code reads: the upstream commit, or a commit of the gateway's own.
  for (const history of ['upstream', 'vetted'] as const)
    t.test(`${name} (gateway.facade.history: ${history})`, async (t) => {
      const gw = await startTestGateway(t, {
        GATEWAY_DEV_INSECURE_AUTH: 'true',
        GATEWAY_ROLES_ADMINS: 'root',
        GATEWAY_FACADE_HISTORY: history,
      });
      const admin = devSession(gw, 'root');
      // The gateway's name and the marketplace.json name differ on purpose: Claude Code registers the latter.
      const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']));
      t.equal((await admin.post('/api/v1/marketplaces', { name: 'acme-tools', url: upstream.url })).status, 201);
      const snapshot = (await admin.post('/api/v1/marketplaces/acme-tools/ingest')).body;
      t.equal((await admin.post(`/api/v1/snapshots/${snapshot.id}/approve`)).status, 200);
      const sha: string = snapshot.sha;
      if (history === 'vetted') t.not(sha, snapshot.upstreamSha, 'vetted history: a commit of the gateway is served');
      else t.equal(sha, snapshot.upstreamSha, 'upstream history: the upstream commit is served');

      const alice = devSession(gw, 'alice');
      const issued = await alice.post('/api/v1/tokens', { name: 'claude code' });
      t.equal(issued.status, 201, 'alice issues herself a personal access token');
      const token: string = issued.body.token;
      const tokenId: number = issued.body.id;

      const home = freshHome('alice');
      t.teardown(() => rmSync(home, { recursive: true, force: true }));
      storeCredential(home, gw.url, 'alice', token);
      // Keep `.git`: without it a URL that is not on github.com is read as a hosted marketplace.json.
      const url = `${gw.url}/git/acme-tools.git`;

      const trap = await egressTrap();
      t.teardown(() => trap.close());
      const proxy = trap.url;

      const add = await claude(cli, home, ['plugin', 'marketplace', 'add', url], { proxy });
      t.ok(add.ok, `claude plugin marketplace add: ${shown(add, token)}`);
      const list = await claude(cli, home, ['plugin', 'marketplace', 'list', '--json'], { proxy });
      t.ok(list.ok, `claude plugin marketplace list: ${shown(list, token)}`);
      t.match(list.stdout, /"acme"/, 'registered under the name in marketplace.json');

      const install = await claude(cli, home, ['plugin', 'install', 'alpha@acme'], { proxy });
      t.ok(install.ok, `claude plugin install alpha@acme: ${shown(install, token)}`);

      // Not asserted (outside the gateway's control), but shown: where the CLI tried to go beyond loopback.
      t.comment(
        `requests beyond loopback attempted by the CLI: ${trap.attempts.length === 0 ? 'none' : trap.attempts.join(', ')}`,
      );
      for (const ran of [add, list, install])
        t.notOk(`${ran.stdout}${ran.stderr}`.includes(token), 'the token is never printed');

      const plugins = join(home, '.claude', 'plugins');
      const clone = join(plugins, 'marketplaces', 'acme');
      t.ok(
        existsSync(join(clone, '.claude-plugin', 'marketplace.json')),
        'the marketplace is cloned under ~/.claude/plugins/marketplaces/acme',
      );
      if (existsSync(join(clone, '.git'))) {
        t.equal(await gitIn(clone, 'rev-parse', 'HEAD'), sha, 'the clone is the approved commit');
        t.notOk(
          readFileSync(join(clone, '.git', 'config'), 'utf8').includes(token),
          'the token is not written into the clone',
        );
      }
      const cached = join(plugins, 'cache', 'acme', 'alpha');
      const versions = existsSync(cached) ? readdirSync(cached) : [];
      t.equal(
        versions.length,
        1,
        `one installed version under ~/.claude/plugins/cache/acme/alpha: ${JSON.stringify(versions)}`,
      );
      const skill = join(cached, versions[0] ?? '-', 'skills', 'alpha-skill', 'SKILL.md');
      t.ok(existsSync(skill), "the plugin's skill is in the plugin cache");
      if (existsSync(skill))
        t.equal(
          readFileSync(skill, 'utf8'),
          marketplaceFiles('acme', ['alpha'])['plugins/alpha/skills/alpha-skill/SKILL.md'],
        );
      const installed = JSON.parse(readFileSync(join(plugins, 'installed_plugins.json'), 'utf8')) as {
        plugins?: Record<string, unknown>;
      };
      const record = (installed.plugins?.['alpha@acme'] ?? []) as Array<{
        scope?: string;
        installPath?: string;
        gitCommitSha?: string;
      }>;
      t.match(
        record,
        [{ scope: 'user', installPath: join(cached, versions[0] ?? '-') }],
        `alpha@acme is recorded in installed_plugins.json: ${JSON.stringify(installed)}`,
      );
      if (record[0]?.gitCommitSha !== undefined)
        t.equal(record[0].gitCommitSha, sha, 'installed from the approved commit');
      t.notOk(existsSync(join(cached, '..', 'beta')), 'only the plugin asked for is installed');

      await gw.settled();
      const audit = await admin.get('/api/v1/audit?marketplace=acme-tools&limit=100');
      t.equal(audit.status, 200, 'GET /api/v1/audit as an admin');
      const uploads = (audit.body.entries as Array<Record<string, unknown>>).filter((e) => e.event === 'upload-pack');
      t.ok(
        uploads.length >= 1,
        `upload-pack in the ledger: ${JSON.stringify(audit.body.entries.map((e: Record<string, unknown>) => [e.event, e.principal]))}`,
      );
      for (const entry of uploads) {
        t.match(
          entry,
          {
            marketplace: 'acme-tools',
            principal: 'alice',
            tokenId,
            credential_kind: 'pat',
            actorType: 'human',
            source: '127.0.0.1',
            sha,
            ref: 'refs/heads/main',
          },
          "fetched by the token's owner, with the token, the approved commit of main",
        );
      }

      // Without the credential the same command fails (the gateway answers 401; git must not prompt).
      const stranger = freshHome('stranger');
      t.teardown(() => rmSync(stranger, { recursive: true, force: true }));
      const refused = await claude(cli, stranger, ['plugin', 'marketplace', 'add', url], { proxy });
      t.notOk(refused.ok, `no credential, no marketplace: ${shown(refused, token)}`);
      t.notOk(refused.timedOut, 'refused at once, no prompt');
      t.match(
        refused.stderr,
        /authentication failed|could not read Username/i,
        'an authentication failure, as git reports a 401',
      );
    });
}
