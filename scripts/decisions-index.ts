// Writes docs/decisions/README.md, the index of the decision files by area (npm run docs:decisions);
// test/unit/docs/decisions.test.ts fails when the index is out of date or a file lacks its title, area or status.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export const decisionsDirectory = 'docs/decisions';
export const decisionsIndexFile = `${decisionsDirectory}/README.md`;

/** The areas, in the order the index lists them. */
export const decisionAreas = [
  'Errors and HTTP',
  'Event store and projections',
  'Process and storage',
  'Replicas and object storage',
  'Configuration',
  'Tooling and dependencies',
  'Metrics, logs and operations',
  'Identity and access',
  'Marketplaces, publication and the facade',
  'External sources and curation',
  'Sync modes and inbound webhooks',
  'Hosted publishing',
  'Virtual catalog',
  'Mirror',
  'Vetting chain and policy',
  'Vetting connectors',
  'Audit ledger and time travel',
  'Outbound',
  'Retention and deletion',
  'Portal',
  'Claude Code clients and gateway-guard',
  'Layers, parsers and configuration',
  'Faults and hostile clients',
] as const;

export type DecisionFile = Readonly<{
  file: string;
  number: number | null;
  title: string | null;
  area: string | null;
  /** The status paragraph, its lines joined. */
  status: string | null;
  hasDecision: boolean;
}>;

/** Reads the head of a decision file: `# N. Title`, then `Area: …` and `Status: …` before the first section. */
export function parseDecision(file: string, text: string): DecisionFile {
  const lines = text.split('\n');
  const heading = /^# (\d+)\. (\S.*)$/.exec(lines[0] ?? '');
  const headEnd = lines.findIndex((line) => line.startsWith('## '));
  const head = headEnd === -1 ? lines : lines.slice(0, headEnd);
  const paragraph = (prefix: string): string | null => {
    const start = head.findIndex((line) => line.startsWith(prefix));
    if (start === -1) return null;
    const end = head.findIndex((line, i) => i > start && line.trim() === '');
    const joined = head
      .slice(start, end === -1 ? head.length : end)
      .join(' ')
      .slice(prefix.length)
      .trim();
    return joined === '' ? null : joined;
  };
  return {
    file,
    number: heading ? Number(heading[1]) : null,
    title: heading ? heading[2]!.trim() : null,
    area: paragraph('Area: '),
    status: paragraph('Status: '),
    hasDecision: lines.includes('## Decision'),
  };
}

export function readDecisions(directory = decisionsDirectory): DecisionFile[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .map((name) => parseDecision(name, readFileSync(`${directory}/${name}`, 'utf8')));
}

/** What is wrong with the files, one line each; empty when every file can be indexed. */
export function decisionProblems(decisions: readonly DecisionFile[]): string[] {
  const problems: string[] = [];
  const files = new Set(decisions.map((d) => d.file));
  const byNumber = new Map<number, string[]>();
  for (const d of decisions) {
    const named = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.exec(d.file);
    if (!named) problems.push(`${d.file}: the name is not NNNN-kebab-title.md`);
    if (d.number === null || d.title === null) {
      problems.push(`${d.file}: the first line is not "# N. Title"`);
    } else {
      if (named && Number(named[1]) !== d.number) problems.push(`${d.file}: the title says decision ${d.number}`);
      byNumber.set(d.number, [...(byNumber.get(d.number) ?? []), d.file]);
    }
    if (d.area === null) problems.push(`${d.file}: no "Area:" line`);
    else if (!(decisionAreas as readonly string[]).includes(d.area)) {
      problems.push(`${d.file}: unknown area "${d.area}"`);
    }
    if (d.status === null) problems.push(`${d.file}: no "Status:" line`);
    for (const [, target] of (d.status ?? '').matchAll(/\]\(([^)]+)\)/g)) {
      if (!files.has(target!)) problems.push(`${d.file}: the status links to ${target}, which is no decision file`);
    }
    if (!d.hasDecision) problems.push(`${d.file}: no "## Decision" section`);
  }
  for (const [number, names] of byNumber) {
    if (names.length > 1) problems.push(`decision ${number} is in more than one file: ${names.join(', ')}`);
  }
  return problems;
}

// The index shows the status's first sentence: "accepted. Governs …" lists as "accepted".
const statusSummary = (status: string) => status.split(/\.\s+(?=[A-Z])/)[0]!.replace(/\.$/, '');
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
const cell = (text: string) => text.replaceAll('|', '\\|');

export function decisionsIndex(decisions: readonly DecisionFile[] = readDecisions()): string {
  const problems = decisionProblems(decisions);
  if (problems.length > 0) throw new Error(`cannot index the decisions:\n${problems.join('\n')}`);
  const inArea = (area: string) =>
    decisions.filter((d) => d.area === area).sort((a, b) => (a.number ?? 0) - (b.number ?? 0));
  const sections = decisionAreas.flatMap((area) => [
    `## ${area}`,
    '',
    '| Decision | Status |',
    '|---|---|',
    ...inArea(area).map(
      (d) => `| [${d.number}. ${cell(d.title ?? '')}](${d.file}) | ${cell(statusSummary(d.status ?? ''))} |`,
    ),
    '',
  ]);
  return [
    '# Decisions',
    '',
    'What the behaviour contract (the area pages of `docs/`, [api.md](../api.md)) and the architecture',
    '([architecture.md](../architecture.md)) leave open, decided once: one file per decision, `NNNN-title.md`,',
    'with its area, its status, the context, the decision and, where they were written down, its consequences.',
    'Code and tests cite a decision by its number ("decision 46").',
    '',
    'A status is `accepted`; `superseded by N` when a later decision replaced it; `amended by N` when a later',
    'decision changed part of it, which then says `amends` or `supersedes` the earlier one.',
    '',
    'This page is generated from the files by `npm run docs:decisions` (`scripts/decisions-index.ts`); a test fails',
    'when it is out of date. A new decision takes the next free number and one of the areas below.',
    '',
    '| Area | Decisions |',
    '|---|---|',
    ...decisionAreas.map((area) => `| [${area}](#${anchorOf(area)}) | ${inArea(area).length} |`),
    '',
    ...sections,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(decisionsIndexFile, decisionsIndex());
