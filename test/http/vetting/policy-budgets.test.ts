// Policy evaluation has budgets: a rule's evaluation is stopped at gateway.policy.evaluation-timeout (in a
// policy worker, so the gateway answers meanwhile), a dry run stops at gateway.policy.dry-run-timeout and
// lists what it did not reach, and a rule whose literal comprehensions are too costly does not compile.
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { serveUpstream } from '../../support/upstream.ts';

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_POLICY_EVALUATION_TIMEOUT: '300ms',
  GATEWAY_POLICY_DRY_RUN_TIMEOUT: '2s',
};

/** A marketplace of `count` one-skill plugins: enough elements for a rule to have real work. */
function manyPlugins(count: number): Record<string, string> {
  const names = Array.from({ length: count }, (_, k) => `p${k}`);
  const files: Record<string, string> = {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'many',
      owner: { name: 'Acme' },
      plugins: names.map((name) => ({ name, source: `./plugins/${name}`, description: name, license: 'MIT' })),
    }),
  };
  for (const name of names)
    files[`plugins/${name}/skills/s/SKILL.md`] =
      `---\nname: s\ndescription: ${name} skill\n---\nDo the ${name} thing.\n`;
  return files;
}

const literal = `[${Array.from({ length: 250 }, (_, k) => k).join(',')}]`;
// 100 plugins x 250 x 250: within the compile-time budget (62,500 literal runs) and far longer than 300 ms.
const costly = `snapshot.plugins.all(p, ${literal}.all(a, ${literal}.all(b, p.name + string(a) + string(b) != "")))`;

t.test('a costly rule is stopped at its time limit while health answers; the dry run is bounded', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, manyPlugins(100), 'many');
  t.equal((await root.post('/api/v1/marketplaces', { name: 'many', url: upstream.url })).status, 201);
  const first = (await root.post('/api/v1/marketplaces/many/ingest')).body;
  await upstream.commit({ 'plugins/p0/skills/s/more.md': 'more\n' });
  const second = (await root.post('/api/v1/marketplaces/many/ingest')).body;
  await upstream.commit({ 'plugins/p1/skills/s/more.md': 'more\n' });
  const third = (await root.post('/api/v1/marketplaces/many/ingest')).body;
  t.ok(first.id && second.id && third.id, 'three held snapshots');

  let slowest = 0;
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const started = Date.now();
      t.equal((await gw.fetch('/actuator/health')).status, 200);
      slowest = Math.max(slowest, Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = Date.now();
  const playground = await root.post('/api/v1/policy/playground', { snapshotId: first.id, expression: costly });
  const dryRun = await root.post('/api/v1/policy/dry-run', { expression: costly });
  const took = Date.now() - started;
  probing = false;
  await prober;

  t.equal(playground.status, 200);
  t.match(playground.body, {
    error: /took longer than 0\.3 s \(gateway\.policy\.evaluation-timeout\) and was stopped/,
  });
  t.equal(dryRun.status, 200);
  const snapshots = dryRun.body.snapshots as { decision: string; outcome: string | null; error: string | null }[];
  t.equal(snapshots.length, 3, 'every chosen snapshot is listed');
  for (const verdict of snapshots) {
    if (verdict.decision === 'not-evaluated') t.match(verdict.error, /dry-run-timeout\) ran out before/);
    else t.match(verdict, { decision: 'deny', outcome: 'error', error: /evaluation-timeout/ });
  }
  t.equal(dryRun.body.notEvaluated + dryRun.body.evaluated, 3);
  t.equal(dryRun.body.denied, dryRun.body.evaluated, 'a stopped evaluation denies');
  // Generous bounds for a loaded test machine; the benchmark records the real figures.
  t.ok(took < 15_000, `playground and dry run answered in ${took} ms`);
  t.ok(slowest < 2000, `the slowest health answer meanwhile took ${slowest} ms`);

  const playgroundOk = await root.post('/api/v1/policy/playground', {
    snapshotId: first.id,
    expression: 'size(snapshot.plugins) == 100',
  });
  t.match(playgroundOk.body, { matched: true }, 'the policy worker answers again after being stopped');

  const refused = await root.post('/api/v1/policy/dry-run', {
    expression: `${literal}.all(a, ${literal}.all(b, ${literal}.all(c, true)))`,
  });
  t.equal(refused.status, 422);
  t.match(refused.body.detail, /predicates 15,687,750 times; at most 100,000/);
});
