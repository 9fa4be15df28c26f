// The labelled vetting corpus: per connector, cases, true positives, false positives and
// misses on HIGH/CRITICAL findings, precision and recall against the targets (precision >= 90 %,
// recall 100 % on the attack set). The scoring is the corpus test's (test/support/vetting-corpus.ts); this
// writes the figures to bench/results/vetting-corpus.{json,md} with every false positive and miss spelled out.
import { explain, loadCorpus, scoreCorpus, type ConnectorScore } from '../test/support/vetting-corpus.ts';
import { log } from './env.ts';
import { figure, figureMarkdown, figureTable, machine, writeResultFiles, type Figure } from './report.ts';

const percent = (ratio: number) => Math.round(ratio * 1000) / 10;

const figuresOf = (c: ConnectorScore): Figure[] => [
  figure(
    `${c.connector}-precision`,
    `${c.connector}: precision on HIGH/CRITICAL`,
    percent(c.precision),
    '%',
    { atLeast: 90, unit: '%' },
    `${c.cases} cases (${c.attack} attack, ${c.benign} benign): TP ${c.tp}, FP ${c.fp}`,
  ),
  figure(
    `${c.connector}-recall`,
    `${c.connector}: recall on the attack set`,
    percent(c.recall),
    '%',
    { atLeast: 100, unit: '%' },
    `${c.tp} of ${c.tp + c.misses} expected findings reported; ${c.misses} missed`,
  ),
];

const tableHeader = ['connector', 'cases', 'attack', 'benign', 'TP', 'FP', 'misses', 'precision', 'recall'];
const tableRow = (c: ConnectorScore): string[] => [
  c.connector,
  String(c.cases),
  String(c.attack),
  String(c.benign),
  String(c.tp),
  String(c.fp),
  String(c.misses),
  `${percent(c.precision)} %`,
  `${percent(c.recall)} %`,
];

export async function vettingCorpusBenchmark(): Promise<void> {
  const started = performance.now();
  const cases = loadCorpus();
  const { scores, connectors } = await scoreCorpus(cases);
  const elapsedMs = performance.now() - started;
  log(`vetting-corpus: ${cases.length} cases scored in ${Math.round(elapsedMs)} ms`);
  const totals = connectors.reduce(
    (sum, c) => ({ cases: sum.cases + c.cases, tp: sum.tp + c.tp, fp: sum.fp + c.fp, misses: sum.misses + c.misses }),
    { cases: 0, tp: 0, fp: 0, misses: 0 },
  );
  const figures = [
    ...connectors.flatMap(figuresOf),
    figure('cases', 'cases in the corpus', totals.cases, 'cases', { atLeast: 60, unit: 'cases' }),
  ];
  const problems = scores.flatMap(explain);
  process.stdout.write(`\nvetting-corpus\n${figureTable(figures)}\n\n`);
  const m = machine();
  const md = [
    '# Vetting corpus: precision and recall per connector',
    '',
    `${new Date().toISOString()} · ${m.cpuModel}, ${m.cores} cores · Node ${m.node} · ${cases.length} cases in ${Math.round(elapsedMs)} ms`,
    '',
    `| ${tableHeader.join(' | ')} |`,
    `|${tableHeader.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...connectors.map((c) => `| ${tableRow(c).join(' | ')} |`),
    '',
    figureMarkdown(figures),
    '',
    'Cases: test/fixtures/vetting-corpus/<connector>/<case>/ (format in its README.md). Only HIGH/CRITICAL findings',
    "of the case's own connector count: on a benign case each is a false positive; on an attack case a finding",
    'matching an expected entry (rule, path, line when given) is a true positive, an expected entry no finding',
    'matches is a miss, any other finding a false positive. Targets: precision >= 90 %, recall 100 %.',
    'Produced by `npm run bench` (BENCH_ONLY=vetting-corpus, bench/vetting-corpus.ts).',
    '',
    problems.length === 0 ? 'No false positive and no miss.' : '## False positives and misses',
    '',
    ...problems.map((p) => `- ${p.replaceAll('\n    ', '\n  - ')}`),
    '',
  ].join('\n');
  const written = writeResultFiles(
    'vetting-corpus',
    {
      benchmark: 'vetting-corpus',
      date: new Date().toISOString(),
      machine: m,
      elapsedMs: Math.round(elapsedMs),
      connectors,
      figures,
      cases: scores.map((s) => ({
        connector: s.case.connector,
        id: s.case.id,
        label: s.case.label,
        shape: s.case.shape,
        tp: s.matched.length,
        fp: s.falsePositives.map((f) => ({ rule: f.id, severity: f.severity, location: f.location, text: f.text })),
        missed: s.missed,
      })),
    },
    md,
  );
  log(`vetting-corpus: wrote ${written.json} and ${written.md}`);
}
