import { readFileSync } from 'node:fs';
import t from 'tap';
import { startTestGateway } from '../../support/gateway.ts';
import { documentedMetrics, familyOf, scrape, valueOf } from './exposition.ts';

// Metrics on /actuator/prometheus, documented in docs/metrics.md ... A sample Grafana dashboard
// in ops/. This test parses docs/metrics.md's metric names and checks the set equals the set the
// registry exposes with the gateway_ prefix (so docs and code cannot drift); the dashboard's every expr names only
// documented metrics.

const documented = documentedMetrics();

t.test('docs/metrics.md lists exactly the gateway_* metrics the registry exposes, each with its type', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true' });
  const exposed = await scrape(gw);
  const gatewayTypes = new Map([...exposed.types].filter(([name]) => name.startsWith('gateway_')));
  t.ok(documented.size >= 14, `docs/metrics.md documents ${documented.size} metrics`);
  t.strictSame([...gatewayTypes.keys()].sort(), [...documented.keys()].sort(), 'the same names');
  for (const [name, type] of gatewayTypes) t.equal(documented.get(name), type, `${name} is documented as a ${type}`);
  t.ok(exposed.types.has('process_cpu_user_seconds_total'), 'the default process metrics stay');
});

t.test('one registry per gateway: two gateways in one process count apart', async (t) => {
  const dev = { GATEWAY_DEV_INSECURE_AUTH: 'true' };
  const [a, b] = [await startTestGateway(t, dev), await startTestGateway(t, dev)];
  // A path no route serves: scraping itself (its health probe, the scrape) never hits it.
  const health = { method: 'GET', route: 'unmatched', status: '404' };
  const count = 'gateway_http_request_duration_seconds_count';
  const [beforeA, beforeB] = [await scrape(a), await scrape(b)];
  for (let i = 0; i < 3; i += 1) await a.fetch('/nowhere');
  t.equal(valueOf(await scrape(a), count, health) - valueOf(beforeA, count, health), 3, 'A counts its own requests');
  t.equal(valueOf(await scrape(b), count, health), valueOf(beforeB, count, health), 'B counts none of them');
});

t.test('every documented metric carries an example PromQL that names only documented metrics', async (t) => {
  const doc = readFileSync('docs/metrics.md', 'utf8');
  for (const name of documented.keys()) {
    const section = doc.slice(doc.indexOf(`### \`${name}\``)).split(/\n### /)[0]!;
    const example = /```promql\n([\s\S]*?)```/.exec(section)?.[1];
    t.ok(example?.includes(name), `${name}: an example that uses it`);
    for (const series of example?.match(/gateway_\w+/g) ?? [])
      t.ok(documented.has(familyOf(series, documented)), `${name}'s example names ${series}`);
  }
});

type Panel = {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: unknown;
  targets?: Array<{ refId: string; expr: string }>;
  panels?: Panel[];
};

t.test(
  'ops/grafana/gateway-dashboard.json: a Grafana dashboard over the documented metrics, all of them',
  async (t) => {
    const dashboard = JSON.parse(readFileSync('ops/grafana/gateway-dashboard.json', 'utf8')) as {
      title: string;
      uid: string;
      schemaVersion: number;
      panels: Panel[];
      templating: { list: Array<{ name: string; type: string }> };
    };
    t.type(dashboard.title, 'string');
    t.type(dashboard.uid, 'string');
    t.type(dashboard.schemaVersion, 'number', 'a dashboard JSON model (schemaVersion)');
    t.ok(dashboard.templating.list.some((v) => v.name === 'datasource' && v.type === 'datasource'));
    const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
    t.equal(new Set(panels.map((p) => p.id)).size, panels.length, 'panel ids are unique');
    const used = new Set<string>();
    for (const panel of panels) {
      t.ok(panel.gridPos.w > 0 && panel.gridPos.w <= 24 && panel.gridPos.x + panel.gridPos.w <= 24, panel.title);
      if (panel.type === 'row') continue;
      t.ok(panel.targets && panel.targets.length > 0, `${panel.title} has queries`);
      for (const target of panel.targets ?? []) {
        const series = target.expr.match(/gateway_\w+/g) ?? [];
        t.ok(series.length > 0, `${panel.title}: ${target.expr} names a gateway metric`);
        for (const s of series) {
          t.ok(documented.has(familyOf(s, documented)), `${panel.title}: ${s} is documented`);
          used.add(familyOf(s, documented));
        }
      }
    }
    t.strictSame([...used].sort(), [...documented.keys()].sort(), 'every documented metric has a panel');
  },
);
