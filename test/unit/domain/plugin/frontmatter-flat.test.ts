// Flat frontmatter (`key: value` lines of plain text) is read without the `yaml` package; these tests hold that
// reading to what the package gives, on the shapes skills, commands and agents use and on generated bodies full
// of the values YAML reads otherwise (booleans, nulls, numbers, comments, nested mappings, quotes, flows).
import t from 'tap';
import { isMap, LineCounter, parse, parseDocument } from 'yaml';
import { flatMapping, frontmatterOf, quoteValues } from '../../../../src/domain/plugin/frontmatter.ts';

/** The value and key lines `yaml` gives for a body whose first line is line 2 of the file, or null if it fails. */
function viaYaml(body: string): { value: unknown; lines: Record<string, number> } | null {
  const counter = new LineCounter();
  const document = parseDocument(body, { lineCounter: counter, uniqueKeys: true, logLevel: 'error' });
  if (document.errors.length > 0) return null;
  const lines: Record<string, number> = {};
  if (isMap(document.contents))
    for (const pair of document.contents.items) {
      const key = (pair.key as { value?: unknown; range?: number[] }) ?? {};
      lines[String(key.value)] = 1 + counter.linePos(key.range![0]!).line;
    }
  return { value: parse(body, { uniqueKeys: true, logLevel: 'error' }) as unknown, lines };
}

function viaFlat(body: string) {
  const read = flatMapping(body, 2);
  if (read === null || !read.ok) return null;
  const value = read.doc.value as Record<string, unknown>;
  return {
    value,
    lines: Object.fromEntries(Object.keys(value).map((key) => [key, read.doc.lineOf(value, key)])),
    line: read.doc.lineOf(value),
  };
}

t.test(
  'the frontmatter of skills, commands and agents as plugins write it is read flat, as yaml reads it',
  async (t) => {
    const bodies = [
      'name: code-review\ndescription: Reviews a pull request for correctness and style. Use when the user asks for a review.\n',
      'name: reviewer\ndescription: Use proactively after code changes.\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\n',
      'description: Run the tests\nallowed-tools: Bash(git diff:*), Bash(npm test:*), Read, Grep\n',
      "description: Don't push to main; open a pull request (see https://example.com/x?a=b&c=d) instead\n",
      'name: x\ndisable-model-invocation: yes\n',
      'description: Fix an issue\nargument-hint: "[issue-number] [--draft]"\n',
      'name: "x"\nglob: "**/*.{ts,tsx}"\nempty: ""\n',
    ];
    for (const body of bodies) {
      const flat = viaFlat(body);
      t.ok(flat, `read flat: ${body.slice(0, 40)}`);
      const yaml = viaYaml(body)!;
      t.strictSame(flat!.value, yaml.value);
      t.strictSame(flat!.lines, yaml.lines);
      t.equal(flat!.line, 2, 'the mapping opens on the first line');
      const front = frontmatterOf(`---\n${body}---\n\nBody\n`);
      t.ok(front?.ok);
      t.strictSame(front!.ok && front!.doc.value, yaml.value);
    }
  },
);

t.test('what is not flat plain text goes to the parser', async (t) => {
  for (const body of [
    'argument-hint: [pr-number] [--fix]\n',
    'enabled: true\n',
    'name: x\nname: y\n',
    'name: x # a comment\n',
    'description: Use when: the user asks\n',
    'description: ends with a colon:\n',
    'version: 1.0\n',
    'name: x\n\nmodel: y\n',
    'name: x\r\n',
    'description: café\n',
    'name: "with \\" an escape"\n',
    'name: "unclosed\n',
    'name: "a" and more\n',
    'hooks:\n  PreToolUse: []\n',
    'name: trailing \n',
    'null: x\n',
    '',
  ])
    t.equal(flatMapping(body, 2), null, JSON.stringify(body));
});

t.test('generated flat bodies: whatever is read flat is what yaml gives', async (t) => {
  const keys = [
    'name',
    'description',
    'tools',
    'model',
    'a-b',
    'x_y',
    'Key9',
    'true',
    'Null',
    'on',
    'yes',
    'constructor',
    'toString',
  ];
  const values = [
    'plain text',
    'true',
    'True',
    'TRUE',
    'false',
    'null',
    'NULL',
    'Null',
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    '~',
    '1.0',
    '0x1F',
    '1e3',
    '.inf',
    '-.inf',
    '.nan',
    'NaN',
    'Infinity',
    'inf',
    'nan',
    'a: b',
    'a:b',
    'a:',
    'a #b',
    'a#b',
    'http://x.test/a?b=c#d',
    'Bash(git diff:*), Read',
    "it's",
    'say "hi"',
    'a [b] c',
    'a {b: c}',
    'a, b',
    'x ',
    'a - b',
    '"quoted"',
    '"[a] [b]"',
    '"a: b"',
    '"a #b"',
    '""',
    '"a\\"b"',
    '"a\\\\b"',
    '"tab\tin"',
    '"a" b',
    "'single'",
    'a ? b',
    'a | b',
    'a > b',
    'a & b',
    'a * b',
    'a ! b',
    'a % b',
    'a @ b',
    'a ` b',
    'a\\nb',
    'a --- b',
    'a ... b',
    'x'.repeat(300),
    'A',
    'z9',
    'a\tb',
    'a  b',
    'e',
    'E',
    'Y',
    'N',
    'a\u00a0b',
  ];
  let state = 7;
  const pick = <T>(list: readonly T[]): T => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return list[state % list.length]!;
  };
  let flat = 0;
  for (let i = 0; i < 4000; i++) {
    const lines = Array.from({ length: 1 + (i % 5) }, () => `${pick(keys)}:${pick([' ', '  ', ''])}${pick(values)}`);
    const body = `${lines.join('\n')}${i % 7 === 0 ? '' : '\n'}`;
    const read = viaFlat(body);
    if (read === null) continue;
    flat += 1;
    const yaml = viaYaml(body);
    if (yaml === null) {
      t.fail(`read flat but yaml refuses: ${JSON.stringify(body)}`);
      continue;
    }
    if (
      JSON.stringify(read.value) !== JSON.stringify(yaml.value) ||
      JSON.stringify(read.lines) !== JSON.stringify(yaml.lines)
    )
      t.strictSame(read, { ...yaml, line: 2 }, JSON.stringify(body));
  }
  t.ok(flat > 300, `${flat} of 4000 bodies read flat`);
});

t.test('commands whose argument-hint is no YAML are read as the second attempt reads them', async (t) => {
  /** What the parser path gives: the body as written, else with Claude Code's quoting. */
  const viaParser = (body: string) => {
    const first = parseDocument(body, { uniqueKeys: true, logLevel: 'error' });
    if (first.errors.length === 0) return first.toJS() as unknown;
    const second = parseDocument(quoteValues(body), { uniqueKeys: true, logLevel: 'error' });
    return second.errors.length === 0 ? (second.toJS() as unknown) : null;
  };
  const lines = [
    'name: x',
    'description: Fix an issue',
    'allowed-tools: Bash(git diff:*), Read',
    'model: sonnet',
    'argument-hint: [pr-number] [--fix]',
    'argument-hint: [a] [b] [c]',
    'hint: [ a ] [ b ]',
    'hint: [<file>] [--out=path/x]',
    'hint: [$1]\t[$2]',
    'hint: [] []',
    'hint: [a]',
    'hint: [a] # comment',
    'hint: [a] b',
    'hint: [a, b] [c]',
    'hint: "[a] [b]"',
    'k2: [a] [b]',
    'description: |',
    '  indented',
    'note: [a] [b',
    'enabled: true',
    'name: y',
  ];
  let state = 5;
  const pick = <T>(list: readonly T[]): T => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return list[state % list.length]!;
  };
  let shortcut = 0;
  for (let i = 0; i < 3000; i++) {
    const body = `${Array.from({ length: 1 + (i % 5) }, () => pick(lines)).join('\n')}\n`;
    const front = frontmatterOf(`---\n${body}---\n\nBody\n`);
    const expected = viaParser(body);
    if (expected === null) t.notOk(front?.ok, JSON.stringify(body));
    else {
      t.ok(front?.ok, JSON.stringify(body));
      if (front?.ok) t.strictSame(front.doc.value, expected, JSON.stringify(body));
    }
    if (/\n?[a-z-]+: \[[^\]]*\] +\[/.test(body) && flatMapping(body, 2) === null) shortcut += 1;
  }
  t.ok(shortcut > 300, `${shortcut} bodies with an unreadable argument-hint`);
  const doc = frontmatterOf('---\nname: x\nargument-hint: [pr] [--fix]\n---\n');
  t.ok(doc?.ok);
  if (doc?.ok) {
    t.strictSame(doc.doc.value, { name: 'x', 'argument-hint': '[pr] [--fix]' });
    t.equal(doc.doc.lineOf(doc.doc.value, 'argument-hint'), 3);
  }
});
