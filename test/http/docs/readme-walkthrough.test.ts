// The README's curl walkthrough, run as a reader would run it: its shell blocks that talk to a gateway
// (`$gw`), in README order, in one bash session, with curl, git and Node.js, against a started gateway that
// already holds another marketplace's snapshots and an audit sink, so an id guessed instead of read from an
// answer would act on the wrong thing. The upstream is served on loopback.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { gitIn, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';
import { scratchDir } from '../../support/scratch.ts';

const run = promisify(execFile);

/** The README's fenced `sh` blocks that use the gateway's URL, in order. */
export function walkthroughBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] ?? '')
    .filter((block) => block.includes('$gw'));
}

const curlMissing = spawnSync('curl', ['--version']).status !== 0;

t.test('the README names its blocks: the walkthrough and the snippets that reuse its session', async (t) => {
  const blocks = walkthroughBlocks(readFileSync('README.md', 'utf8'));
  t.match(blocks[0], /^gw=\$\{GW:-http:\/\/127\.0\.0\.1:8080\}$/m, 'the gateway URL comes from GW');
  t.match(blocks[0], /^upstream=\$\{UPSTREAM:-/m, 'the upstream URL from UPSTREAM');
  for (const block of blocks) {
    t.notMatch(
      block,
      /localhost:8080|127\.0\.0\.1:8080\/|snapshots\/\d|sinks\/\d|"snapshotId": \d/,
      'no fixed id or URL',
    );
  }
  t.ok(blocks.length >= 5, `${blocks.length} blocks`);
});

t.test(
  'the README walkthrough works on a gateway that already has snapshots',
  { skip: curlMissing ? 'curl is not installed' : false },
  async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'alice' });
    const api = devSession(gw, 'alice');

    // Another marketplace first: an approved snapshot and a held one, and an audit sink.
    const tools = await serveUpstream(t, marketplaceFiles('tools', ['one']), 'tools');
    t.equal((await api.post('/api/v1/marketplaces', { name: 'tools', url: tools.url })).status, 201);
    const first = await api.post('/api/v1/marketplaces/tools/ingest');
    t.equal((await api.post(`/api/v1/snapshots/${first.body.id}/approve`)).status, 200);
    await tools.commit({ 'plugins/one/skills/one-skill/SKILL.md': '---\nname: one-skill\n---\nAgain.\n' });
    const held = await api.post('/api/v1/marketplaces/tools/ingest');
    t.equal(held.body.state, 'held');
    const earlierSink = await api.post('/api/v1/audit/sinks', { name: 'earlier', url: 'https://sink.example.test/' });
    t.equal(earlierSink.status, 201);

    // The README's GATEWAY_TOKEN: a machine credential whose principal (alice, a configured admin) may approve.
    const machine = await api.post('/api/v1/tokens/machine', {
      principal: 'alice',
      name: 'readme',
      apiScopes: ['policy:read', 'webhooks:write', 'audit-sinks:write'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    t.equal(machine.status, 201, 'a machine credential for the snippets that use GATEWAY_TOKEN');

    const acme = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']), 'acme');
    const dir = scratchDir(t, 'gw-readme-');
    const script = join(dir, 'walkthrough.sh');
    writeFileSync(script, ['set -eu', ...walkthroughBlocks(readFileSync('README.md', 'utf8'))].join('\n'));
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GW: gw.url,
      UPSTREAM: acme.url,
      GATEWAY_TOKEN: machine.body.token as string,
    };
    let stdout = '';
    try {
      ({ stdout } = await run('bash', [script], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }));
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; code?: number };
      t.fail(`the walkthrough stopped (exit ${e.code}): ${e.stderr}\n${e.stdout}`);
      return;
    }

    const listed = await api.get('/api/v1/marketplaces');
    const byName = new Map<string, any>(listed.body.map((m: any) => [m.name, m]));
    const [snapshot] = byName.get('acme').snapshots;
    t.match(snapshot, { state: 'approved', decidedBy: 'alice' }, 'the walkthrough approved the snapshot it ingested');
    t.not(snapshot.id, 1, 'which is not the gateway’s first snapshot');
    t.equal(byName.get('acme').servedSha, snapshot.sha);
    t.match(
      byName.get('tools').snapshots,
      [
        { id: first.body.id, state: 'approved' },
        { id: held.body.id, state: 'held' },
      ],
      'the other marketplace is untouched',
    );
    t.equal(await gitIn(join(dir, 'acme'), 'rev-parse', 'HEAD'), snapshot.sha, 'the clone is the approved commit');
    t.ok(existsSync(join(dir, 'acme/plugins/alpha/skills/alpha-skill/SKILL.md')));
    t.match(stdout, /"outcome":"CLEAR"/, 'the vetting report was read');
    t.match(stdout, /"entries":\[/, 'and the ledger');
    t.match(stdout, /\{"matched":false\}/, 'the playground evaluated the rule against the snapshot');
    t.match(stdout, /"secret":"whsec_/, 'the webhook subscriber was made');

    await gw.settled();
    const ledger = await api.get('/api/v1/audit?marketplace=acme&limit=100');
    t.ok(
      ledger.body.entries.some((e: any) => e.event === 'upload-pack' && e.principal === 'alice'),
      'the clone is on the ledger',
    );
    const sinks = await api.get('/api/v1/audit/sinks');
    t.match(
      sinks.body,
      [
        { name: 'earlier', enabled: true },
        { name: 'siem', enabled: false, batchSize: 2000, cursorPosition: 0 },
      ],
      'the sink the walkthrough made is the one it switched off and replayed',
    );
  },
);
