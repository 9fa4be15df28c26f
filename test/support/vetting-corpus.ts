// The labelled vetting corpus (format in test/fixtures/vetting-corpus/README.md): loads every
// case under test/fixtures/vetting-corpus/<connector>/<case>/, runs the built-in connector of that name over the
// case's files/ tree, and scores its HIGH/CRITICAL findings against case.json. Used by the corpus test and by
// `npm run bench` (BENCH_ONLY=vetting-corpus). A malformed case throws: a corpus that silently drops a case
// would report figures for cases nobody wrote.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Connector } from '../../src/adapters/vetting/connector.ts';
import { builtInConnectors } from '../../src/adapters/vetting/registry.ts';
import { isBlocking, pathOfLocation, type Finding } from '../../src/domain/kernel/findings.ts';
import { scanInput } from './scan-input.ts';

export const corpusRoot = resolve(import.meta.dirname, '../fixtures/vetting-corpus');

export type Expected = Readonly<{ rule: string; path: string; line?: number }>;

export type CorpusCase = Readonly<{
  connector: string;
  id: string;
  /** The case directory (absolute). */
  dir: string;
  label: 'attack' | 'benign';
  shape: string;
  why: string;
  expect: readonly Expected[];
  /** The files/ tree, by path relative to files/ (forward slashes). */
  files: Readonly<Record<string, Buffer>>;
}>;

/** A HIGH/CRITICAL finding of the case's connector, with the line of text it points at. */
export type ScoredFinding = Finding & Readonly<{ path: string; line: number; text: string | null }>;

export type CaseScore = Readonly<{
  case: CorpusCase;
  /** Expected entries matched by a finding (true positives). */
  matched: readonly Expected[];
  /** Expected entries no finding matched (misses). */
  missed: readonly Expected[];
  /** HIGH/CRITICAL findings matching no expected entry (false positives). */
  falsePositives: readonly ScoredFinding[];
  /** Every HIGH/CRITICAL finding of the connector on the case. */
  blocking: readonly ScoredFinding[];
}>;

export type ConnectorScore = Readonly<{
  connector: string;
  cases: number;
  attack: number;
  benign: number;
  tp: number;
  fp: number;
  misses: number;
  /** TP / (TP + FP); 1 when there is no HIGH/CRITICAL finding at all. */
  precision: number;
  /** matched / expected over attack cases; 1 when there is no attack case. */
  recall: number;
}>;

const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const caseKeys = new Set(['label', 'shape', 'why', 'expect']);
const expectKeys = new Set(['rule', 'path', 'line']);

const connectors = (): Connector[] => builtInConnectors({ http: { url: null, timeoutMs: 0 } });

/** The built-in connector names a corpus directory may be named after. */
export const connectorNames = (): string[] => connectors().map((c) => c.name);

function readTree(dir: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    const relative = prefix === '' ? entry : `${prefix}/${entry}`;
    const stat = lstatSync(path);
    if (stat.isDirectory()) Object.assign(out, readTree(path, relative));
    else if (stat.isFile()) out[relative] = readFileSync(path);
    else throw new Error(`${path}: only regular files and directories belong in a corpus case`);
  }
  return out;
}

function validate(
  where: string,
  value: unknown,
  files: Readonly<Record<string, Buffer>>,
): Omit<CorpusCase, 'connector' | 'id' | 'dir' | 'files'> {
  const fail = (message: string): never => {
    throw new Error(`${where}/case.json: ${message} (format: test/fixtures/vetting-corpus/README.md)`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not a JSON object');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (!caseKeys.has(key)) fail(`unknown field '${key}'`);
  const { label, shape, why, expect } = raw;
  if (label !== 'attack' && label !== 'benign')
    fail(`label must be "attack" or "benign", not ${JSON.stringify(label)}`);
  if (typeof shape !== 'string' || !kebab.test(shape)) fail(`shape must be a kebab-case string`);
  if (typeof why !== 'string' || why.trim().length < 10) fail('why must be a sentence');
  if (!Array.isArray(expect)) return fail('expect must be an array');
  if (label === 'benign' && expect.length > 0) fail('a benign case expects nothing (expect: [])');
  if (label === 'attack' && expect.length === 0) fail('an attack case names at least one expected finding');
  const entries = expect.map((entry: unknown, index): Expected => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      return fail(`expect[${index}] is not an object`);
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) if (!expectKeys.has(key)) fail(`expect[${index}]: unknown field '${key}'`);
    if (typeof e.rule !== 'string' || e.rule === '') fail(`expect[${index}].rule must be a rule id`);
    if (typeof e.path !== 'string' || e.path === '') fail(`expect[${index}].path must be a path inside files/`);
    if (e.line !== undefined && (!Number.isInteger(e.line) || (e.line as number) < 1))
      fail(`expect[${index}].line must be an integer from 1`);
    const path = e.path as string;
    // A finding may be about a path the tree lacks (manifest-missing); otherwise the path must exist.
    if (files[path] === undefined && e.rule !== 'manifest-missing')
      fail(`expect[${index}].path '${path}' is not in files/`);
    return e.line === undefined
      ? { rule: e.rule as string, path }
      : { rule: e.rule as string, path, line: e.line as number };
  });
  return { label: label as 'attack' | 'benign', shape: shape as string, why: why as string, expect: entries };
}

/** Every case of the corpus, sorted by connector then id; throws on a malformed case or directory. */
export function loadCorpus(root: string = corpusRoot): CorpusCase[] {
  const known = new Set(connectorNames());
  const cases: CorpusCase[] = [];
  for (const connector of readdirSync(root).sort()) {
    const connectorDir = join(root, connector);
    if (!lstatSync(connectorDir).isDirectory()) continue; // README.md
    if (!known.has(connector))
      throw new Error(`${connectorDir}: '${connector}' is not a built-in connector (${[...known].join(', ')})`);
    for (const id of readdirSync(connectorDir).sort()) {
      const dir = join(connectorDir, id);
      const where = `${connector}/${id}`;
      if (!lstatSync(dir).isDirectory()) throw new Error(`${where}: a case is a directory`);
      if (!kebab.test(id)) throw new Error(`${where}: a case id is kebab-case`);
      const extra = readdirSync(dir).filter((entry) => entry !== 'case.json' && entry !== 'files');
      if (extra.length > 0)
        throw new Error(`${where}: only case.json and files/ belong in a case, not ${extra.join(', ')}`);
      if (!existsSync(join(dir, 'files')) || !lstatSync(join(dir, 'files')).isDirectory())
        throw new Error(`${where}: files/ is missing`);
      const files = readTree(join(dir, 'files'));
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
      } catch (error) {
        throw new Error(`${where}/case.json: ${error instanceof Error ? error.message : String(error)}`);
      }
      cases.push({ connector, id, dir, files, ...validate(where, parsed, files) });
    }
  }
  return cases;
}

const lineOf = (location: string): number => Number(/:(\d+)$/.exec(location)?.[1] ?? 1);

function withText(corpusCase: CorpusCase, finding: Finding): ScoredFinding {
  const path = pathOfLocation(finding.location);
  const line = lineOf(finding.location);
  const file = corpusCase.files[path];
  const text = file === undefined || file.includes(0) ? null : (file.toString('utf8').split('\n')[line - 1] ?? null);
  return { ...finding, path, line, text };
}

const matches = (expected: Expected, finding: ScoredFinding): boolean =>
  finding.id === expected.rule &&
  finding.path === expected.path &&
  (expected.line === undefined || finding.line === expected.line);

/** Runs the case's connector over its files and scores the HIGH/CRITICAL findings (corpus format, Scoring). */
export async function scoreCase(corpusCase: CorpusCase): Promise<CaseScore> {
  const connector = connectors().find((c) => c.name === corpusCase.connector);
  if (connector === undefined) throw new Error(`no built-in connector '${corpusCase.connector}'`);
  const result = await connector.scan(
    scanInput(corpusCase.files),
    { snapshotId: 0, marketplace: 'vetting-corpus', sha: '0'.repeat(40) },
    new AbortController().signal,
  );
  const blocking = result.findings.filter(isBlocking).map((finding) => withText(corpusCase, finding));
  const matched = corpusCase.expect.filter((e) => blocking.some((f) => matches(e, f)));
  const missed = corpusCase.expect.filter((e) => !matched.includes(e));
  const falsePositives = blocking.filter((f) => !corpusCase.expect.some((e) => matches(e, f)));
  return { case: corpusCase, matched, missed, falsePositives, blocking };
}

/** Per-connector figures over scored cases (sorted by connector name). */
export function summarize(scores: readonly CaseScore[]): ConnectorScore[] {
  const names = [...new Set(scores.map((s) => s.case.connector))].sort();
  return names.map((connector) => {
    const mine = scores.filter((s) => s.case.connector === connector);
    const tp = mine.reduce((n, s) => n + s.matched.length, 0);
    const fp = mine.reduce((n, s) => n + s.falsePositives.length, 0);
    const misses = mine.reduce((n, s) => n + s.missed.length, 0);
    const attack = mine.filter((s) => s.case.label === 'attack').length;
    return {
      connector,
      cases: mine.length,
      attack,
      benign: mine.length - attack,
      tp,
      fp,
      misses,
      precision: tp + fp === 0 ? 1 : tp / (tp + fp),
      recall: tp + misses === 0 ? 1 : tp / (tp + misses),
    };
  });
}

/** Scores every case and summarizes per connector. */
export async function scoreCorpus(
  cases: readonly CorpusCase[],
): Promise<Readonly<{ scores: CaseScore[]; connectors: ConnectorScore[] }>> {
  const scores: CaseScore[] = [];
  for (const corpusCase of cases) scores.push(await scoreCase(corpusCase));
  return { scores, connectors: summarize(scores) };
}

/** A reader's account of what went wrong in a case: each false positive and miss, with its line of text. */
export function explain(score: CaseScore): string[] {
  const where = `${score.case.connector}/${score.case.id} (${score.case.label}, ${score.case.shape})`;
  return [
    ...score.falsePositives.map(
      (f) =>
        `${where}: false positive ${f.id} ${f.severity} at ${f.path}:${f.line}\n    line: ${f.text ?? '(no text)'}\n    message: ${f.message}`,
    ),
    ...score.missed.map(
      (e) =>
        `${where}: missed ${e.rule} at ${e.path}${e.line === undefined ? '' : `:${e.line}`}` +
        (score.blocking.length === 0
          ? ' (no HIGH/CRITICAL finding at all)'
          : `; the connector reported ${score.blocking.map((f) => `${f.id}@${f.path}:${f.line}`).join(', ')}`),
    ),
  ];
}
