// The figures and the Markdown of the large-marketplace benchmark (bench/large-marketplace.ts).
import type { GatewayStats } from './bench-gateway.ts';
import type { Latencies } from './large-marketplace-load.ts';
import { figure, figureMarkdown, fmt, latencies, machine, type Figure, type Goal } from './report.ts';

export const goals = {
  healthP99: { atMost: 100, unit: 'ms' },
  fetchRatio: { atMost: 2, unit: '× idle p99' },
  ingest: { atMost: 15, unit: 's' },
  dryRun: { atMost: 10, unit: 's' },
} as const;
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The gateway's counters of one phase, without the raw samples. */
export const compact = (stats: GatewayStats) => ({
  eventLoop: {
    utilization: round(stats.eventLoop.utilization, 3),
    delayP99Ms: round(stats.eventLoop.delayP99Ms),
    delayMaxMs: round(stats.eventLoop.delayMaxMs),
  },
  memoryRssMiB: round(stats.memoryRss / 2 ** 20),
  spawns: stats.spawns,
  /** The ten SQL statements (by their first words) that took the most time, from the call to the result. */
  queries: Object.entries(stats.queries)
    .sort((a, b) => b[1].totalMs - a[1].totalMs)
    .slice(0, 10)
    .map(([sql, timing]) => ({ sql, count: timing.count, totalMs: Math.round(timing.totalMs) })),
  requests: Object.fromEntries(
    Object.entries(stats.requests).map(([kind, timing]) => {
      const l = latencies(Float64Array.from(timing.samples));
      return [kind, { count: timing.count, p50: round(l.p50), p99: round(l.p99), max: round(l.max) }];
    }),
  ),
});

export type PhaseView = Readonly<{
  phase: string;
  seconds: number;
  fetch: Latencies;
  health: Latencies;
  counts: Record<string, number>;
  load1: { max: number; end: number };
  gateway: ReturnType<typeof compact>;
}>;

export type DryRun = Readonly<{ seconds: number; status: number; answer: Record<string, unknown>; listed: number }>;

export type Outcome = Readonly<{
  cfg: Readonly<{ plugins: number; filesPerPlugin: number; clients: number; probeMs: number; idleSeconds: number }>;
  files: number;
  bytes: number;
  ingest: Readonly<{ seconds: number; status: number; phases: ReadonlyArray<{ phase: string; atMs: number }> }>;
  vettingOutcome: string;
  snapshots: number;
  dryRuns: Readonly<{ refused: DryRun; costly: DryRun }>;
  views: readonly PhaseView[];
  fetchErrors: readonly string[];
}>;

export const ms = (l: Latencies) => `${fmt(l.p50, 1)} / ${fmt(l.p95, 1)} / ${fmt(l.p99, 1)} / ${fmt(l.max, 1)}`;
const spread = (l: Latencies, what: string) =>
  `p50 ${round(l.p50)}, p95 ${round(l.p95)}, max ${round(l.max)} ms; ${l.count} ${what}`;
const loop = (v: PhaseView) =>
  `gateway event-loop delay p99 ${round(v.gateway.eventLoop.delayP99Ms)} ms, max ${round(v.gateway.eventLoop.delayMaxMs)} ms`;

export function largeFigures(o: Outcome): Figure[] {
  const view = (phase: string) => o.views.find((v) => v.phase === phase)!;
  const idle = view('idle');
  const during = view('ingest');
  const refused = view('dry run (refused)');
  const costly = view('dry run (costly)');
  const answer = (d: DryRun) =>
    d.status === 200
      ? `answer 200: ${['total', 'evaluated', 'notEvaluated', 'denied'].map((k) => `${k} ${String(d.answer[k])}`).join(', ')}`
      : `answer ${d.status}: ${String(d.answer.detail ?? '')}`;
  const rows: Array<[string, string, number, string, Goal | undefined, string?]> = [
    [
      'ingest',
      'large marketplace ingest, request to answer',
      round(o.ingest.seconds, 2),
      's',
      goals.ingest,
      `${fmt(o.files)} files, ${fmt(o.bytes / 2 ** 20, 1)} MiB, answer ${o.ingest.status}, vetting ${o.vettingOutcome}`,
    ],
    [
      'health-p99-ingest',
      '/actuator/health p99 during the ingest',
      round(during.health.p99),
      'ms',
      goals.healthP99,
      spread(during.health, 'probes'),
    ],
    [
      'fetch-p99-ratio',
      'no-op fetch p99 during the ingest ÷ idle p99',
      round(during.fetch.p99 / idle.fetch.p99, 2),
      '×',
      goals.fetchRatio,
      `${round(during.fetch.p99)} ms ÷ ${round(idle.fetch.p99)} ms`,
    ],
    [
      'fetch-p99-ingest',
      'no-op fetch p99 during the ingest',
      round(during.fetch.p99),
      'ms',
      undefined,
      spread(during.fetch, 'fetches'),
    ],
    ['fetch-p99-idle', 'no-op fetch p99, idle', round(idle.fetch.p99), 'ms', undefined, spread(idle.fetch, 'fetches')],
    [
      'health-p99-idle',
      '/actuator/health p99, idle',
      round(idle.health.p99),
      'ms',
      undefined,
      spread(idle.health, 'probes'),
    ],
    [
      'event-loop-p99-ingest',
      'gateway event-loop delay p99 during the ingest',
      round(during.gateway.eventLoop.delayP99Ms),
      'ms',
      undefined,
      `idle ${round(idle.gateway.eventLoop.delayP99Ms)} ms`,
    ],
    [
      'event-loop-max-ingest',
      'gateway event-loop delay max during the ingest',
      round(during.gateway.eventLoop.delayMaxMs),
      'ms',
      undefined,
      `idle ${round(idle.gateway.eventLoop.delayMaxMs)} ms`,
    ],
    [
      'load-ingest',
      'load average (1 min), highest during the ingest',
      during.load1.max,
      '',
      undefined,
      `${machine().cores} cores; idle phase ${idle.load1.max}`,
    ],
    [
      'dry-run-refused',
      'dry run of the 256³ literal rule, answered in',
      o.dryRuns.refused.seconds,
      's',
      goals.dryRun,
      answer(o.dryRuns.refused),
    ],
    [
      'health-p99-dry-run-refused',
      '/actuator/health p99 during that dry run',
      round(refused.health.p99),
      'ms',
      goals.healthP99,
      `${spread(refused.health, 'probes')}; ${loop(refused)}`,
    ],
    [
      'dry-run-costly',
      'dry run of a costly accepted rule, answered in',
      o.dryRuns.costly.seconds,
      's',
      goals.dryRun,
      answer(o.dryRuns.costly),
    ],
    [
      'health-p99-dry-run-costly',
      '/actuator/health p99 during that dry run',
      round(costly.health.p99),
      'ms',
      goals.healthP99,
      `${spread(costly.health, 'probes')}; ${loop(costly)}`,
    ],
  ];
  return rows.map(([id, label, value, unit, goal, detail]) => figure(id, label, value, unit, goal, detail));
}

export function largeMarkdown(o: Outcome, figures: readonly Figure[]): string {
  const { cfg } = o;
  const table = [
    '| phase | s | fetch p50 / p95 / p99 / max ms (n) | health p50 / p95 / p99 / max ms (n) | event-loop delay p99 / max ms | load (1 min) max |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...o.views.map(
      (v) =>
        `| ${v.phase} | ${fmt(v.seconds, 1)} | ${v.fetch.count ? `${ms(v.fetch)} (${v.fetch.count})` : '-'} | ` +
        `${ms(v.health)} (${v.health.count}) | ${fmt(v.gateway.eventLoop.delayP99Ms, 1)} / ` +
        `${fmt(v.gateway.eventLoop.delayMaxMs, 1)} | ${v.load1.max} |`,
    ),
  ];
  const details = figures.filter((f) => f.detail).map((f) => `- ${f.label}: ${f.detail}`);
  return [
    '# Large marketplace: ingest and dry run while the facade serves',
    '',
    `${cfg.plugins} plugins × ${cfg.filesPerPlugin} files of published-plugin content (bench/vetting-content.ts) plus`,
    'three PNG-like binaries and two files of about 2 MiB (a bundled script, a JSON glossary):',
    `${fmt(o.files)} files, ${fmt(o.bytes / 2 ** 20, 1)} MiB, served by \`git http-backend\` on loopback. A gateway in a`,
    `child process serves a small approved marketplace to ${cfg.clients} git clients running no-op \`git fetch\` back to`,
    `back; a prober reads /actuator/health every ${cfg.probeMs} ms. Phases: idle (${cfg.idleSeconds} s); the ingest of the`,
    'large marketplace (POST /api/v1/marketplaces/large/ingest, request to answer: fetch, capture, tree, vetting);',
    `3 s after it; then, the clients stopped and ${o.snapshots} snapshots held or served (the extra ones ingests of a`,
    'tiny marketplace registered ten times, four ingests at once, for at most 4 minutes), two policy dry runs',
    '(POST /api/v1/policy/dry-run, limit 500) with the prober alone: the three nested comprehensions over',
    '256-element literals, refused when the rule compiles (its phase is held 2 s so the prober samples it), and a',
    'costly rule that compiles (two comprehensions over the literals inside one over the plugins), each evaluation',
    'stopped at gateway.policy.evaluation-timeout (1 s) and the whole at gateway.policy.dry-run-timeout (10 s).',
    '',
    figureMarkdown(figures),
    '',
    ...details,
    '',
    ...table,
    '',
    `Ingest phases (ms after the request): ${o.ingest.phases.map((p) => `${p.phase} ${fmt(p.atMs)}`).join(', ')}.`,
    '',
    `Fetch errors: ${o.fetchErrors.length ? o.fetchErrors.join('; ') : 'none'}.`,
    '',
    'Produced by `BENCH_ONLY=large-marketplace npm run bench` (bench/large-marketplace.ts). The event-loop delay is',
    "the gateway process's own (bench/gateway-process.ts, reset at each phase's start): it tells a blocked loop",
    'from a machine short of CPU. The fetch and health latencies are end to end, as a client sees them, on a',
    'machine whose 2 cores also run the git clients, PostgreSQL and the upstream.',
    '',
  ].join('\n');
}
