import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  decisionProblems,
  decisionsIndex,
  decisionsIndexFile,
  parseDecision,
  readDecisions,
} from '../../../scripts/decisions-index.ts';

t.test('docs/decisions/README.md is the index npm run docs:decisions writes', async (t) => {
  t.equal(readFileSync(decisionsIndexFile, 'utf8'), decisionsIndex(), 'run npm run docs:decisions');
});

t.test('every decision file has a title, an area and a status, and a number no other file has', async (t) => {
  const decisions = readDecisions();
  t.strictSame(decisionProblems(decisions), []);
  t.ok(
    decisions.some((d) => d.number === 1) && decisions.some((d) => d.number === 332),
    'decisions 1 to 332 are files',
  );
});

t.test('the checks catch a file the index could not list', async (t) => {
  const good = parseDecision(
    '0007-health.md',
    '# 7. Health\n\nArea: Errors and HTTP\n\nStatus: superseded by [8](0008-openapi.md)\n\n## Decision\n\nText.\n',
  );
  t.strictSame(good, {
    file: '0007-health.md',
    number: 7,
    title: 'Health',
    area: 'Errors and HTTP',
    status: 'superseded by [8](0008-openapi.md)',
    hasDecision: true,
  });
  const other = parseDecision(
    '0008-openapi.md',
    '# 8. OpenAPI\n\nArea: Errors and HTTP\n\nStatus: accepted\n\n## Decision\n',
  );
  t.strictSame(decisionProblems([good, other]), []);
  t.strictSame(
    decisionProblems([
      good,
      parseDecision('0007-again.md', '# 7. Again\n\nArea: Errors and HTTP\n\nStatus: accepted\n\n## Decision\n'),
    ]),
    [
      '0007-health.md: the status links to 0008-openapi.md, which is no decision file',
      'decision 7 is in more than one file: 0007-health.md, 0007-again.md',
    ],
  );
  t.strictSame(decisionProblems([parseDecision('0009-x.md', '# 9. X\n\nArea: Elsewhere\n\n## Context\n')]), [
    '0009-x.md: unknown area "Elsewhere"',
    '0009-x.md: no "Status:" line',
    '0009-x.md: no "## Decision" section',
  ]);
  t.strictSame(decisionProblems([parseDecision('Notes.md', 'Status: accepted\n\n## Decision\n')]), [
    'Notes.md: the name is not NNNN-kebab-title.md',
    'Notes.md: the first line is not "# N. Title"',
    'Notes.md: no "Area:" line',
  ]);
  t.throws(() => decisionsIndex([parseDecision('0010-y.md', '# 10. Y\n')]), /cannot index the decisions/);
});
