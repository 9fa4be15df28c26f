// Rules run in policy workers: a costly one is stopped at its time limit while the event loop stays free,
// a cancelled one stops, and the pool goes on answering after either.
import t from 'tap';
import { evaluateInWorker } from '../../../../src/adapters/policy/policy-engine.ts';
import type { InventoryPlugin } from '../../../../src/domain/plugin/inventory.ts';
import { policyVariables, type PolicyVariables } from '../../../../src/domain/policy/variables.ts';

const plugin = (name: string): InventoryPlugin => ({
  name,
  description: `${name} tools`,
  source: `./plugins/${name}`,
  skills: [],
  commands: [],
  agents: [],
  hooks: [],
  mcpServers: [],
  lspServers: [],
});

const variables = (plugins: number): PolicyVariables =>
  policyVariables({
    at: '2025-03-02T00:00:00.000Z',
    snapshot: {
      id: 12,
      sha: 'c'.repeat(40),
      upstreamSha: 'c'.repeat(40),
      state: 'held',
      capturedAt: '2025-03-01T12:00:00.000Z',
      ingestedBy: 'alice',
      fileCount: 31,
    },
    marketplace: { name: 'acme', origin: 'upstream', url: 'https://github.com/acme/tools.git' },
    plugins: Array.from({ length: plugins }, (_, k) => plugin(`p${k}`)),
    findings: [],
    licenses: [],
    minimumReleaseAgeMs: 0,
    approver: { principal: 'bob', roles: [] },
  });

// Within every compile-time limit (the lists come from the variables), and far more work than 50 ms.
const costly =
  'snapshot.plugins.all(a, snapshot.plugins.all(b, snapshot.plugins.all(c, a.name + b.name + c.name != "")))';

t.test('an evaluation past its time limit is stopped, and the event loop runs meanwhile', async (t) => {
  t.strictSame(await evaluateInWorker('size(snapshot.plugins) == 2', variables(2), 5000), { matched: true });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  const started = Date.now();
  const result = await evaluateInWorker(costly, variables(1000), 50);
  const took = Date.now() - started;
  clearInterval(ticker);
  t.match(result, { error: /took longer than 0\.05 s \(gateway\.policy\.evaluation-timeout\) and was stopped/ });
  t.ok(took < 5000, `stopped after ${took} ms`);
  t.ok(ticks >= 2, `the event loop ran ${ticks} times meanwhile`);
  t.strictSame(
    await evaluateInWorker('size(snapshot.plugins) > 1', variables(3), 5000),
    { matched: true },
    'the pool goes on',
  );
});

t.test('a cancelled evaluation stops, waiting or running', async (t) => {
  const controller = new AbortController();
  const running = evaluateInWorker(costly, variables(1000), 30_000, controller.signal);
  const waiting = evaluateInWorker('true', variables(1), 30_000, controller.signal);
  setTimeout(() => controller.abort(), 100);
  t.strictSame(await Promise.all([running, waiting]), [
    { error: 'the evaluation was cancelled' },
    { error: 'the evaluation was cancelled' },
  ]);
  t.strictSame(await evaluateInWorker('true', variables(1), 5000), { matched: true });
});

t.test('compile errors and run-time errors answer as errors', async (t) => {
  t.match(await evaluateInWorker('snapshot.nope', variables(1), 5000), { error: /no field named 'nope'/ });
  t.match(await evaluateInWorker('snapshot.plugins[5].name == ""', variables(1), 5000), {
    error: /index|out of range|5/i,
  });
});
