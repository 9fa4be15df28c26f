// Progress lines (stderr), the result table (stdout) and the result files under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Target = Readonly<{ min: number; unit: string }>;

export type PhaseResult = Readonly<{
  id: string;
  label: string;
  /** Events appended or delivered. */
  events: number;
  /** Append calls (append phases only). */
  appends?: number;
  concurrency?: number;
  durationMs: number;
  /** The headline rate: appends/s for append phases, events/s for the others. */
  rate: number;
  unit: string;
  target?: Target;
  status?: 'PASS' | 'BELOW';
  latencyMs?: Readonly<{ p50: number; p95: number; p99: number; max: number }>;
  /** Where the phase's time went, in milliseconds. */
  breakdownMs?: Readonly<Record<string, number>>;
  notes?: string;
}>;

export const verdict = (rate: number, target: Target | undefined): 'PASS' | 'BELOW' | undefined =>
  target ? (rate >= target.min ? 'PASS' : 'BELOW') : undefined;

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Percentiles of append latencies, in milliseconds. */
export function latencies(samples: Float64Array): { p50: number; p95: number; p99: number; max: number } {
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** One progress line per phase on stderr: a start line, a line every few seconds, an end line. */
export class PhaseProgress {
  private readonly started = performance.now();
  private lastPrinted = this.started;

  private readonly label: string;
  private readonly total: number;
  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
    process.stderr.write(`[bench] ${label}: starting (${fmt(total)} events)\n`);
  }

  update(done: number): void {
    const now = performance.now();
    if (now - this.lastPrinted < 5000) return;
    this.lastPrinted = now;
    const seconds = (now - this.started) / 1000;
    process.stderr.write(`[bench] ${this.label}: ${fmt(done)}/${fmt(this.total)} events, ${fmt(done / seconds)}/s\n`);
  }

  done(result: PhaseResult): void {
    const target = result.target
      ? ` (target >= ${fmt(result.target.min)} ${result.target.unit}: ${result.status})`
      : '';
    process.stderr.write(
      `[bench] ${this.label}: done, ${fmt(result.events)} events in ${fmt(result.durationMs / 1000, 2)} s, ${fmt(result.rate)} ${result.unit}${target}\n`,
    );
  }
}

export const machine = () => {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: platform(),
    release: release(),
    arch: arch(),
    node: process.version,
  };
};

export type Report = Readonly<{
  benchmark: string;
  date: string;
  machine: ReturnType<typeof machine>;
  postgres: Readonly<Record<string, string>>;
  counts: Readonly<Record<string, number>>;
  phases: readonly PhaseResult[];
  checks: Readonly<Record<string, unknown>>;
}>;

function rows(phases: readonly PhaseResult[]): string[][] {
  return phases.map((p) => [
    p.label,
    fmt(p.events),
    fmt(p.durationMs / 1000, 2),
    `${fmt(p.rate)} ${p.unit}`,
    p.latencyMs ? `${fmt(p.latencyMs.p50, 2)} / ${fmt(p.latencyMs.p99, 2)}` : '-',
    p.target ? `>= ${fmt(p.target.min)} ${p.target.unit}` : '-',
    p.status ?? '-',
  ]);
}

const header = ['phase', 'events', 'seconds', 'rate', 'p50 / p99 ms', 'target', 'status'];

/** The result table as aligned plain text. */
export function textTable(phases: readonly PhaseResult[]): string {
  const all = [header, ...rows(phases)];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows(phases).map(line)].join('\n');
}

function markdown(report: Report): string {
  const table = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows(report.phases).map((r) => `| ${r.join(' | ')} |`),
  ];
  const m = report.machine;
  return [
    '# Event store benchmark: PostgreSQL adapter',
    '',
    `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node} · ${report.postgres.version ?? ''}`,
    '',
    ...table,
    '',
    `Counts: ${Object.entries(report.counts)
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ')}.`,
    '',
    'Append phases report append calls per second (one event per append); catch-up and rebuild report',
    'events per second over the whole store. Produced by `npm run bench` (bench/run.ts); the figures',
    'depend on the machine and its disk (every append is a commit that waits for its WAL flush).',
    '',
    ...report.phases.filter((p) => p.notes).map((p) => `- ${p.label}: ${p.notes}`),
    '',
    "Where an append's time went before grouped appends (pool reset, NOTIFY, WAL flush): bench/results/append-diagnosis.json.",
    '',
  ].join('\n');
}

export function writeReport(report: Report): { json: string; md: string } {
  return writeResultFiles('eventstore-postgres', report, markdown(report));
}

/** Writes bench/results/<name>.json and <name>.md. */
export function writeResultFiles(name: string, report: unknown, md: string): { json: string; md: string } {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  const mdFile = join(dir, `${name}.md`);
  writeFileSync(
    json,
    `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value), 2)}\n`,
  );
  writeFileSync(mdFile, md);
  return { json, md: mdFile };
}

/** A headline figure of the facade and audit benchmarks, with its target when it has one. */
export type Goal = Readonly<{ atLeast?: number; atMost?: number; unit: string }>;
export type Figure = Readonly<{
  id: string;
  label: string;
  value: number;
  unit: string;
  goal?: Goal;
  status?: 'PASS' | 'BELOW';
  /** One line: what was measured and how. */
  detail?: string;
}>;

export function figure(id: string, label: string, value: number, unit: string, goal?: Goal, detail?: string): Figure {
  let status: 'PASS' | 'BELOW' | undefined;
  if (goal)
    status =
      (goal.atLeast === undefined || value >= goal.atLeast) && (goal.atMost === undefined || value <= goal.atMost)
        ? 'PASS'
        : 'BELOW';
  return {
    id,
    label,
    value,
    unit,
    ...(goal ? { goal } : {}),
    ...(status ? { status } : {}),
    ...(detail ? { detail } : {}),
  };
}

const goalText = (goal: Goal | undefined): string => {
  if (!goal) return '-';
  const parts = [
    goal.atLeast === undefined ? null : `>= ${fmt(goal.atLeast, goal.atLeast < 10 ? 2 : 0)}`,
    goal.atMost === undefined ? null : `<= ${fmt(goal.atMost, goal.atMost < 10 ? 2 : 0)}`,
  ].filter(Boolean);
  return `${parts.join(' and ')} ${goal.unit}`;
};

const valueText = (f: Figure): string =>
  `${fmt(f.value, Math.abs(f.value) < 10 ? 2 : Math.abs(f.value) < 100 ? 1 : 0)} ${f.unit}`;

const figureRows = (figures: readonly Figure[]): string[][] =>
  figures.map((f) => [f.label, valueText(f), goalText(f.goal), f.status ?? '-']);
const figureHeader = ['figure', 'value', 'target', 'status'];

export function figureTable(figures: readonly Figure[]): string {
  const all = [figureHeader, ...figureRows(figures)];
  const widths = figureHeader.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(figureHeader), widths.map((w) => '-'.repeat(w)).join('  '), ...figureRows(figures).map(line)].join('\n');
}

export function figureMarkdown(figures: readonly Figure[]): string {
  return [
    `| ${figureHeader.join(' | ')} |`,
    `|${figureHeader.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...figureRows(figures).map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** Median of a list of numbers (0 for an empty list). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
