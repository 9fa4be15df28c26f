// Curation (docs/marketplaces.md, Selection): an admin chooses which plugins of an upstream marketplace the gateway
// serves (`include`/`exclude` name patterns); only selected plugins are resolved, vetted, composed and served; the
// snapshot says which were left out and why.
import t from 'tap';
import {
  checkSelection,
  leftOutBecause,
  matchesPattern,
  sameSelection,
  selectionLimits,
  selectPlugins,
  unmatchedPatterns,
} from '../../../../src/domain/snapshot/selection.ts';

t.test('a pattern matches the whole name: * any run of characters, ? exactly one, the rest literally', async (t) => {
  const cases: [string, string, boolean][] = [
    ['code-review', 'code-review', true],
    ['code-review', 'code-reviewer', false],
    ['code-review', 'my-code-review', false],
    ['code-*', 'code-review', true],
    ['code-*', 'code-', true],
    ['code-*', 'code', false],
    ['*-review', 'code-review', true],
    ['*', '', true],
    ['*', 'anything at all', true],
    ['c?de', 'code', true],
    ['c?de', 'cde', false],
    ['c?de', 'coode', false],
    ['*a*b*', 'xaxxbx', true],
    ['*a*b*', 'xbxxax', false],
    ['a**b', 'ab', true],
    ['??', 'é€', true],
    ['?', '🙂', true],
    ['x.y', 'xzy', false],
    ['x+', 'xx', false],
    ['Code-*', 'code-review', false],
    ['code-*', 'Code-review', false],
    ['Explanatory Output Style', 'Explanatory Output Style', true],
  ];
  for (const [pattern, name, expected] of cases)
    t.equal(matchesPattern(pattern, name), expected, `${pattern} ~ ${name}`);
});

t.test('a pattern of many stars against a long name answers (no exponential backtracking)', async (t) => {
  const pattern = `${'*a'.repeat(60)}*b`;
  t.equal(matchesPattern(pattern, 'a'.repeat(5000)), false);
  t.equal(matchesPattern(pattern, `${'a'.repeat(5000)}b`), true);
});

const names = ['code-review', 'commit-commands', 'pr-review-toolkit', 'security-guidance', 'example-plugin'];

t.test('no selection serves every plugin, in the given order', async (t) => {
  t.strictSame(selectPlugins(names, null), { selected: names, leftOut: [] });
  t.strictSame(selectPlugins([], null), { selected: [], leftOut: [] });
});

t.test('include keeps only what it matches; the rest are left out with the include list as reason', async (t) => {
  const result = selectPlugins(names, { include: ['code-review', '*-toolkit'], exclude: [] });
  t.strictSame(result.selected, ['code-review', 'pr-review-toolkit']);
  t.strictSame(result.leftOut, [
    { plugin: 'commit-commands', reason: "not matched by include ['code-review', '*-toolkit']" },
    { plugin: 'security-guidance', reason: "not matched by include ['code-review', '*-toolkit']" },
    { plugin: 'example-plugin', reason: "not matched by include ['code-review', '*-toolkit']" },
  ]);
});

t.test('exclude applies after include, naming the first pattern that excluded the plugin', async (t) => {
  const result = selectPlugins(names, { include: ['*review*', 'security-*'], exclude: ['pr-*', '*-toolkit'] });
  t.strictSame(result.selected, ['code-review', 'security-guidance']);
  t.strictSame(result.leftOut, [
    { plugin: 'commit-commands', reason: "not matched by include ['*review*', 'security-*']" },
    { plugin: 'pr-review-toolkit', reason: "excluded by 'pr-*'" },
    { plugin: 'example-plugin', reason: "not matched by include ['*review*', 'security-*']" },
  ]);
});

t.test('an empty include means every plugin, so exclude alone leaves out only what it matches', async (t) => {
  const result = selectPlugins(names, { include: [], exclude: ['example-*'] });
  t.strictSame(result.selected, ['code-review', 'commit-commands', 'pr-review-toolkit', 'security-guidance']);
  t.strictSame(result.leftOut, [{ plugin: 'example-plugin', reason: "excluded by 'example-*'" }]);
});

t.test('a long include list is abbreviated in the reason; a long pattern is cut', async (t) => {
  const include = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  t.equal(leftOutBecause('z', { include, exclude: [] }), "not matched by include ['a', 'b', 'c', 'd', 'e', … 2 more]");
  const long = `${'x'.repeat(50)}*`;
  t.equal(leftOutBecause(`${'x'.repeat(60)}`, { include: [], exclude: [long] }), `excluded by '${'x'.repeat(40)}…'`);
  t.equal(leftOutBecause('a', { include, exclude: [] }), null);
});

t.test('checkSelection: both lists empty or absent is no selection; duplicates are dropped', async (t) => {
  t.strictSame(checkSelection(), { ok: true, selection: null });
  t.strictSame(checkSelection([], []), { ok: true, selection: null });
  t.strictSame(checkSelection(['a-*', 'b', 'a-*'], ['b', 'b']), {
    ok: true,
    selection: { include: ['a-*', 'b'], exclude: ['b'] },
  });
  t.strictSame(checkSelection(undefined, ['x']), { ok: true, selection: { include: [], exclude: ['x'] } });
});

t.test('checkSelection refuses bad patterns, naming each by list and position', async (t) => {
  const longest = 'p'.repeat(selectionLimits.maxPatternLength);
  t.match(checkSelection([longest, 'a b', '*', '?x']), { ok: true }, 'the limit itself, inner spaces and wildcards');
  const bad: [string, RegExp][] = [
    ['', /include\[0\] '' is empty/],
    [`${longest}p`, /include\[0\] 'p{40}…' is longer than 128 characters/],
    ['a\u0000b', /contains a control character/],
    ['tab\there', /contains a control character/],
    [' padded', /begins or ends with white space/],
    ['padded ', /begins or ends with white space/],
    ['!code-review', /begins with '!': list the plugins to leave out under exclude/],
    ['[ab]*', /uses \[ \] \{ \} or \\, which are not pattern syntax here/],
    ['{a,b}', /not pattern syntax here/],
    ['a\\*', /not pattern syntax here/],
  ];
  for (const [pattern, problem] of bad) {
    const checked = checkSelection([pattern]);
    t.equal(checked.ok, false, JSON.stringify(pattern));
    if (!checked.ok) t.match(checked.problems, [problem], JSON.stringify(pattern));
  }
  const both = checkSelection(['ok', ''], ['[x]', 'fine', ' y']);
  t.strictSame(!both.ok && both.problems.map((p) => p.split(' ')[0]), ['include[1]', 'exclude[0]', 'exclude[2]']);
});

t.test(`checkSelection refuses more than ${selectionLimits.maxPatterns} patterns in a list`, async (t) => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `plugin-${i}`);
  t.match(checkSelection(many(selectionLimits.maxPatterns), many(selectionLimits.maxPatterns)), { ok: true });
  t.strictSame(checkSelection(many(selectionLimits.maxPatterns + 1)), {
    ok: false,
    problems: ['include has 501 patterns; at most 500 are allowed'],
  });
  t.strictSame(checkSelection([], many(600)), {
    ok: false,
    problems: ['exclude has 600 patterns; at most 500 are allowed'],
  });
});

t.test('sameSelection compares both lists in order', async (t) => {
  t.ok(sameSelection(null, null));
  t.notOk(sameSelection(null, { include: [], exclude: ['x'] }));
  t.notOk(sameSelection({ include: ['a'], exclude: [] }, null));
  t.ok(sameSelection({ include: ['a', 'b'], exclude: ['c'] }, { include: ['a', 'b'], exclude: ['c'] }));
  t.notOk(sameSelection({ include: ['a', 'b'], exclude: [] }, { include: ['b', 'a'], exclude: [] }));
  t.notOk(sameSelection({ include: ['a'], exclude: [] }, { include: [], exclude: ['a'] }));
});

t.test('unmatchedPatterns names the patterns that match no plugin (a misspelt name shows)', async (t) => {
  t.strictSame(unmatchedPatterns(names, null), { include: [], exclude: [] });
  t.strictSame(
    unmatchedPatterns(names, {
      include: ['code-reveiw', 'commit-*', 'nothing-*'],
      exclude: ['pr-review-tolkit', 'example-*'],
    }),
    { include: ['code-reveiw', 'nothing-*'], exclude: ['pr-review-tolkit'] },
  );
  t.strictSame(unmatchedPatterns([], { include: ['a'], exclude: [] }), { include: ['a'], exclude: [] });
});
