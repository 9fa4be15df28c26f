import t from 'tap';
import type { Interceptor } from '../../../src/adapters/postgres/pool.ts';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// One read per approval: every input of the approve gate (the snapshot, roles, the vetting run, waivers,
// withdrawn commits, the policy rules and their variables) is read once, in one statement; no query repeats within one
// approval. The pool's async context does not follow a request (connections are handed over in the
// context of whoever released them), so the test observes a quiet gateway during the one request:
// the catalog reactor off, sweeps and delivery polls far away, and projection work told apart by its transaction.

let observing: string[] | null = null;
const observer: Interceptor = {
  name: 'approve-query-count',
  beforeQueryExecution: (context, query) => {
    if (observing && context.transactionId === null) observing.push(query.sql.replace(/\s+/g, ' ').trim());
    return null;
  },
};

// The event store's reads and appends (the command's and the runner's) and the read-your-writes wait on
// the checkpoints are not reads of the approval's inputs.
const isInputRead = (sql: string) => !/\bes\.|projection_checkpoints|pg_advisory|^listen|^notify/i.test(sql);

t.test('approving a snapshot with a policy rule enabled reads each input once and repeats no query', async (t) => {
  const gw = await startTestGateway(
    t,
    {
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: 'root',
      GATEWAY_CATALOG_ENABLED: 'false',
      GATEWAY_VETTING_WAIVER_SWEEP_INTERVAL: '24h',
      // The delivery duties poll on their own schedule; a slow machine's approval outlasts their 5 s.
      GATEWAY_WEBHOOKS_POLL_INTERVAL: '24h',
      GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '24h',
    },
    { poolInterceptors: [observer] },
  );
  const root = devSession(gw, 'root');
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha', 'beta']));
  t.equal((await root.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201, 'registered');
  const snapshot = (await root.post('/api/v1/marketplaces/acme/ingest')).body as { id: number };
  t.equal(
    (
      await root.post('/api/v1/policy/rules', {
        name: 'no-nope',
        description: 'never matches here',
        expression: 'snapshot.plugins.exists(p, p.name == "nope")',
      })
    ).status,
    200,
    'an enabled rule, so the policy variables are read too',
  );
  await gw.settled();

  const xsrf = 'query-count';
  const queries: string[] = [];
  observing = queries;
  const answer = await gw.app.inject({
    method: 'POST',
    url: `/api/v1/snapshots/${snapshot.id}/approve`,
    headers: { 'x-dev-user': 'root', cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf },
  });
  observing = null;
  t.equal(answer.statusCode, 200, `approved: ${answer.body.slice(0, 300)}`);

  const reads = queries.filter(isInputRead);
  t.ok(reads.length > 0, "the observer sees the approval's queries (it could fail)");
  const repeated = [...new Set(reads.filter((sql, i) => reads.indexOf(sql) !== i))];
  t.strictSame(
    repeated,
    [],
    `no query repeats within the approval (${reads.length} queries: ${reads.map((q) => q.slice(0, 60)).join(' | ')})`,
  );
  const inputs = reads.filter((sql) =>
    [
      /from snapshots s where s\.id = a\.id/,
      /from role_grants/,
      /from vetting_runs/,
      /from waivers/,
      /from policy_rules/,
    ].every((pattern) => pattern.test(sql)),
  );
  t.equal(inputs.length, 1, "the approval's inputs are read in one statement");
  for (const [what, pattern] of [
    ['the snapshot', /from snapshots s where s\.id = a\.id/],
    ['the latest vetting run', /from vetting_runs/],
    ['the roles (grants)', /from role_grants/],
    ['the waivers', /from waivers/],
    ['the policy rules', /from policy_rules/],
  ] as const)
    t.equal(reads.filter((sql) => pattern.test(sql)).length, 1, `${what} read once`);

  const again = (await root.get(`/api/v1/snapshots/${snapshot.id}/vetting`)).status;
  t.equal(again, 200, 'the snapshot is still readable');
  const listed = (await root.get('/api/v1/marketplaces')).body as Array<{ snapshots: Array<Record<string, unknown>> }>;
  t.strictSame(
    listed[0]!.snapshots.find((s) => s.id === snapshot.id),
    JSON.parse(answer.body),
    "the approval's answer is the row as the read model has it afterwards",
  );
});
