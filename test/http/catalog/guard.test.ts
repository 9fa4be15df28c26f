// Recall that reaches holders (docs/guard.md): a first-party plugin `gateway-guard` that the catalog can carry
// (`gateway.catalog.guard: true`), whose SessionStart hook calls `POST /status/v1/snapshots` with the commits
// the client holds and tells the user, in Claude Code, which installed marketplaces carry revoked content and
// what to run. Tested by running the real Claude Code CLI hook command against the gateway.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { guardPluginFiles } from '../../../src/domain/catalog/guard-plugin.ts';
import { expectJson, session, type Client } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';
import { scrape, valueOf } from '../metrics/exposition.ts';
import {
  claude,
  claudeEnvironment,
  cliTimeoutMs,
  egressTrap,
  freshHome,
  runBounded,
  shown,
  storeCredential,
  type ClaudeCode,
} from '../claude/claude-code-cli.ts';
import { approveMarketplace, type Revision } from './support.ts';

t.setTimeout(10 * 60_000);

/** The devDependency's native binary (its postinstall replaces the placeholder bin/claude.exe). */
async function installedCli(): Promise<{ ok: true; cli: ClaudeCode } | { ok: false; reason: string }> {
  const root = resolve('node_modules/@anthropic-ai/claude-code');
  const command = join(root, 'bin', 'claude.exe');
  if (!existsSync(command) || statSync(command).size < 64 * 1024)
    return { ok: false, reason: 'the devDependency @anthropic-ai/claude-code has no native binary here' };
  const home = freshHome('guard-version');
  try {
    const ran = await runBounded(command, ['--version'], {
      cwd: home,
      env: claudeEnvironment(home),
      timeoutMs: cliTimeoutMs,
    });
    const version = /^(\d+\.\d+\.\d+\S*) \(Claude Code\)/m.exec(ran.stdout)?.[1];
    if (!version) return { ok: false, reason: `claude --version does not run here: ${ran.stderr.slice(0, 200)}` };
    return { ok: true, cli: { version, command, prefixArgs: [], root } };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

type Hook = Readonly<{ code: number | null; stdout: string; stderr: string }>;

/**
 * Runs a SessionStart command hook as Claude Code does: the command line through the shell with
 * CLAUDE_PLUGIN_ROOT substituted and exported (with CLAUDE_PLUGIN_DATA and CLAUDE_PROJECT_DIR), the event
 * as JSON on stdin, and killed at the hook's timeout.
 */
function runHook(command: string, env: NodeJS.ProcessEnv, root: string, cwd: string, timeoutS: number): Promise<Hook> {
  return new Promise((done) => {
    const line = command.replaceAll('${CLAUDE_PLUGIN_ROOT}', root);
    const child = spawn('/bin/sh', ['-c', line], {
      cwd,
      env: {
        ...env,
        CLAUDE_PLUGIN_ROOT: root,
        CLAUDE_PLUGIN_DATA: join(env.HOME!, '.claude', 'plugins', 'data', 'gateway-guard-catalog'),
        CLAUDE_PROJECT_DIR: cwd,
      },
      timeout: timeoutS * 1000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(
      JSON.stringify({
        session_id: 'guard-test',
        transcript_path: join(cwd, 'transcript.jsonl'),
        cwd,
        hook_event_name: 'SessionStart',
        source: 'startup',
      }),
    );
  });
}

/**
 * The guard's files, served as a marketplace of their own, through the gateway's vetting chain. The hooks
 * scanner reports what the hook does: it posts data read on the machine (the commit ids held) to a host
 * found at run time, which the chain blocks whoever sends it. The catalog carries the guard without
 * ingesting it (it is the gateway's own code), so nothing else may be found in it.
 */
async function vettingOfTheGuard(t: Test, admin: Client): Promise<void> {
  const files: Record<string, string> = {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'guard-source',
      owner: { name: 'test' },
      plugins: [{ name: 'gateway-guard', source: './gateway-guard' }],
    }),
  };
  for (const [path, text] of Object.entries(guardPluginFiles)) files[`gateway-guard/${path}`] = text;
  const upstream = await serveUpstream(t, files, 'guard-source');
  await expectJson(
    t,
    await admin.post('/api/v1/marketplaces', { name: 'guard-source', url: upstream.url }),
    201,
    'register',
  );
  const snapshot = await expectJson<{ id: number }>(
    t,
    await admin.post('/api/v1/marketplaces/guard-source/ingest'),
    201,
    'ingest the guard',
  );
  const report = await expectJson<{ uncovered: Array<{ ruleId?: string; id?: string; location: string }> }>(
    t,
    await admin.get(`/api/v1/snapshots/${snapshot.id}/vetting`),
    200,
    'the vetting report of the guard',
  );
  const script = guardPluginFiles['hooks/session-start.sh']!;
  const curlLine = script.split('\n').findIndex((line) => line.includes('| curl --silent')) + 1;
  t.same(
    report.uncovered.map((f) => [f.ruleId ?? f.id, f.location]),
    [['hooks-data-exfiltration', `gateway-guard/hooks/session-start.sh:${curlLine}`]],
    'the one blocking finding is the POST of the holdings to the gateway',
  );
}

const cli = await installedCli();
const name =
  'the gateway-guard SessionStart hook, installed by Claude Code from the catalog, warns about a revoked commit';

if (!cli.ok) {
  t.test(name, { skip: cli.reason }, async () => {});
} else {
  t.test(name, async (t) => {
    const gw = await startTestGateway(t, {
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: 'root',
      GATEWAY_CATALOG_GUARD: 'true',
    });
    const root = session(gw, 'root');
    const acme = await approveMarketplace(t, root, 'acme', marketplaceFiles('acme', ['alpha']));
    await approveMarketplace(t, root, 'studio', marketplaceFiles('studio', ['gamma']));
    const revision = await expectJson<Revision>(t, await root.get('/api/v1/catalog'), 200, 'the catalog revision');

    // An unscoped personal token (scopes omitted: every marketplace), given to git through the environment.
    const { token } = await expectJson<{ token: string }>(
      t,
      await session(gw, 'alice').post('/api/v1/tokens', { name: 'claude code' }),
      201,
      'alice issues a token',
    );
    const home = freshHome('guard');
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    const trap = await egressTrap();
    t.teardown(() => trap.close());
    const env: NodeJS.ProcessEnv = {
      ...claudeEnvironment(home, trap.url),
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${gw.url}/.extraHeader`,
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`alice:${token}`).toString('base64')}`,
    };
    const run = (args: readonly string[]) =>
      runBounded(cli.cli.command, args, { cwd: home, env, timeoutMs: cliTimeoutMs });

    for (const marketplace of ['catalog', 'acme']) {
      const add = await run(['plugin', 'marketplace', 'add', `${gw.url}/git/${marketplace}.git`]);
      t.ok(add.ok, `claude plugin marketplace add ${marketplace}: ${shown(add, token)}`);
    }
    for (const plugin of ['gateway-guard', 'alpha']) {
      const install = await run(['plugin', 'install', `${plugin}@catalog`]);
      t.ok(install.ok, `claude plugin install ${plugin}@catalog: ${shown(install, token)}`);
    }
    const plugins = join(home, '.claude', 'plugins');
    const installed = JSON.parse(readFileSync(join(plugins, 'installed_plugins.json'), 'utf8')) as {
      plugins: Record<string, Array<{ installPath: string }>>;
    };
    const pluginRoot = installed.plugins['gateway-guard@catalog']?.[0]?.installPath ?? '-';
    t.equal(
      readFileSync(join(pluginRoot, 'hooks', 'session-start.sh'), 'utf8'),
      guardPluginFiles['hooks/session-start.sh'],
      'the hook script installed is the one the gateway ships',
    );
    const validate = await claude(cli.cli, home, ['plugin', 'validate', pluginRoot]);
    t.ok(validate.ok, `claude plugin validate accepts the installed guard: ${shown(validate, token)}`);

    const hooks = JSON.parse(readFileSync(join(pluginRoot, 'hooks', 'hooks.json'), 'utf8')) as {
      hooks: { SessionStart: Array<{ hooks: Array<{ command: string; timeout: number }> }> };
    };
    const handler = hooks.hooks.SessionStart[0]!.hooks[0]!;
    const sessionStart = () => runHook(handler.command, env, pluginRoot, home, handler.timeout);

    const answered = async () => valueOf(await scrape(gw), 'gateway_holdings_answers_total', { state: 'approved' });
    const approvedBefore = await answered();
    const before = await sessionStart();
    t.equal(
      (await answered()) - approvedBefore,
      3,
      'the hook asked about the two commits the catalog was composed from and the one acme serves directly',
    );
    t.same(
      { code: before.code, stdout: before.stdout },
      { code: 0, stdout: '' },
      `before the revocation it says nothing: ${before.stderr}`,
    );

    // An administrative withdrawal: "status check answers revoked" (spec, Snapshot state).
    await expectJson(
      t,
      await root.request('DELETE', '/api/v1/marketplaces/acme', { reason: 'leaked credential' }),
      200,
      'acme is removed, withdrawing its approved snapshot',
    );
    const after = await sessionStart();
    t.equal(after.code, 0, `the hook exits 0: ${after.stderr}`);
    let output: { systemMessage?: string; hookSpecificOutput?: { hookEventName?: string; additionalContext?: string } };
    try {
      output = JSON.parse(after.stdout) as typeof output;
    } catch {
      output = {};
    }
    const message = output.systemMessage ?? '';
    t.equal(
      output.hookSpecificOutput?.hookEventName,
      'SessionStart',
      `hook output as Claude Code reads it: ${after.stdout}`,
    );
    t.match(
      message,
      `catalog holds acme@${acme.sha.slice(0, 12)}, revoked on the gateway`,
      'names the marketplace and the commit',
    );
    t.match(message, 'claude plugin marketplace update catalog', 'and what to run');
    t.match(message, `acme holds acme@${acme.sha.slice(0, 12)}`, 'a marketplace added directly from the gateway too');
    t.match(message, 'claude plugin marketplace update acme', 'with its own advice');
    t.notMatch(message, 'studio', 'the approved constituent is not named');
    t.equal(output.hookSpecificOutput?.additionalContext, message, 'Claude is told the same');
    t.ok(
      revision.constituents.some((c) => c.marketplace === 'acme' && c.sha === acme.sha),
      'held through the catalog',
    );

    // The other credential git may hold: a credential helper (`git credential fill`), no extra header.
    storeCredential(home, gw.url, 'alice', token);
    const viaHelper = { ...env, GIT_CONFIG_COUNT: '0' };
    const helped = await runHook(handler.command, viaHelper, pluginRoot, home, handler.timeout);
    t.match(
      helped.stdout,
      `catalog holds acme@${acme.sha.slice(0, 12)}, revoked on the gateway`,
      `with the credential from git's credential helper, the same warning: ${helped.stderr}`,
    );

    const update = await run(['plugin', 'marketplace', 'update', 'catalog']);
    t.ok(update.ok, `claude plugin marketplace update catalog: ${shown(update, token)}`);
    const removed = await run(['plugin', 'marketplace', 'remove', 'acme']);
    t.ok(removed.ok, `claude plugin marketplace remove acme (it is gone from the gateway): ${shown(removed, token)}`);
    const updated = await sessionStart();
    t.same({ code: updated.code, stdout: updated.stdout }, { code: 0, stdout: '' }, 'after the update: all clear');

    // A credential the gateway refuses: one line, and the session goes on.
    const tokens = await expectJson<Array<{ id: number }>>(
      t,
      await session(gw, 'alice').get('/api/v1/tokens'),
      200,
      'tokens',
    );
    t.equal(
      (await session(gw, 'alice').delete(`/api/v1/tokens/${tokens[0]!.id}`)).status,
      204,
      'alice revokes her token',
    );
    const refused = await sessionStart();
    t.equal(refused.code, 0, 'exit 0 with a refused credential');
    t.match(
      (JSON.parse(refused.stdout || '{}') as { systemMessage?: string }).systemMessage ?? '',
      `${gw.url} refused the credential git has for it`,
      `a one-line note: ${refused.stdout}`,
    );

    await vettingOfTheGuard(t, root);

    await gw.close();
    const down = await sessionStart();
    t.same(
      { code: down.code, stdout: down.stdout },
      { code: 0, stdout: '' },
      `with the gateway down the hook ends quietly within its timeout: ${down.stderr}`,
    );
  });
}
