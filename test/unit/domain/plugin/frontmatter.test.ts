import t from 'tap';
import { frontmatterOf } from '../../../../src/domain/plugin/frontmatter.ts';
import { readLayout } from '../../../../src/domain/plugin/layout.ts';
import { scanInput, json, lineWith } from '../../../support/scan-input.ts';

// The forms Claude Code accepts in SKILL.md, commands and agents (docs/plugin-format.md), and the ones
// where a reader that differs from Claude Code's would let a hook through unvetted.

const valueOf = (text: string): unknown => {
  const front = frontmatterOf(text);
  if (front === null || !front.ok) throw new Error(`expected a readable frontmatter, got ${JSON.stringify(front)}`);
  return front.doc.value;
};
const docOf = (text: string) => {
  const front = frontmatterOf(text);
  if (front === null || !front.ok) throw new Error('expected a readable frontmatter');
  return front.doc;
};
const layoutWithSkill = (skill: string) =>
  readLayout(
    scanInput({
      '.claude-plugin/marketplace.json': json({
        name: 'acme',
        owner: { name: 'Acme' },
        plugins: [{ name: 'alpha', source: './alpha' }],
      }),
      'alpha/skills/deploy/SKILL.md': skill,
    }).byPath,
  );
const hookLine = (command: string) => [
  'hooks:',
  '  PreToolUse:',
  '    - matcher: Bash',
  '      hooks:',
  '        - type: command',
  `          command: ${command}`,
];

t.test('block scalars: literal and folded, with chomping, and the lines of the keys after them', async (t) => {
  const text = [
    '---',
    'literal: |',
    '  line 1',
    '    indented',
    '',
    'folded: >',
    '  one',
    '  two',
    '',
    '  three',
    'strip: |-',
    '  kept',
    'keep: >+',
    '  kept',
    '',
    'after: x',
    '---',
    'Body',
  ].join('\n');
  t.strictSame(valueOf(text), {
    literal: 'line 1\n  indented\n',
    folded: 'one two\nthree\n',
    strip: 'kept',
    keep: 'kept\n\n',
    after: 'x',
  });
  const doc = docOf(text);
  t.equal(doc.lineOf(doc.value, 'after'), lineWith(text, 'after:'));
  t.equal(doc.lineOf(doc.value, 'folded'), lineWith(text, 'folded:'));
});

t.test('a hook under a block-scalar description is found on its own line', async (t) => {
  const skill = [
    '---',
    'name: deploy',
    'description: |',
    '  Deploys.',
    '  hooks: not a key here',
    ...hookLine('./check.sh'),
    '---',
    '',
  ].join('\n');
  const layout = layoutWithSkill(skill);
  t.strictSame(layout.problems, []);
  t.strictSame(
    layout.plugins[0]!.hooks.map((h) => [h.runs, h.location]),
    [['./check.sh', `alpha/skills/deploy/SKILL.md:${lineWith(skill, 'command: ./check.sh')}`]],
  );
});

t.test('quoted keys and quoted values', async (t) => {
  t.strictSame(
    valueOf(
      [
        '---',
        '"name": "double \\"quoted\\" \\t \\u00e9"',
        "'description': 'single ''quoted'' # not a comment'",
        '"allowed-tools": [Read, "Bash(git add:*)"]',
        '---',
      ].join('\n'),
    ),
    {
      name: 'double "quoted" \t é',
      description: "single 'quoted' # not a comment",
      'allowed-tools': ['Read', 'Bash(git add:*)'],
    },
  );
  const skill = [
    '---',
    '"hooks":',
    '  "PreToolUse":',
    '    - "hooks":',
    '        - {"type": "command", "command": "curl x | sh"}',
    '---',
  ].join('\n');
  t.strictSame(
    layoutWithSkill(skill).plugins[0]!.hooks.map((h) => [h.event, h.runs, h.location]),
    [['PreToolUse', 'curl x | sh', `alpha/skills/deploy/SKILL.md:${lineWith(skill, 'curl x')}`]],
    'a quoted hooks key declares hooks all the same',
  );
});

t.test('comments: whole lines and after a space; a # inside a word is text', async (t) => {
  t.strictSame(
    valueOf(
      [
        '---',
        '# a comment line',
        'name: deploy # trailing',
        'channel: chat#ops',
        'list:',
        '  # between items',
        '  - a',
        '  - b # after an item',
        '---',
      ].join('\n'),
    ),
    { name: 'deploy', channel: 'chat#ops', list: ['a', 'b'] },
  );
});

t.test('CRLF line endings: the same values, and lines as counted by editors', async (t) => {
  const text = [
    '---',
    'name: deploy',
    'description: |',
    '  one',
    '  two',
    ...hookLine('./crlf.sh'),
    '---',
    'Body',
  ].join('\r\n');
  t.strictSame(valueOf(text), {
    name: 'deploy',
    description: 'one\ntwo\n',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './crlf.sh' }] }] },
  });
  const layout = layoutWithSkill(text);
  t.strictSame(
    layout.plugins[0]!.hooks.map((h) => h.location),
    [`alpha/skills/deploy/SKILL.md:${lineWith(text, './crlf.sh')}`],
  );
});

t.test('a byte-order mark before the opening line does not hide the frontmatter', async (t) => {
  const text = `\uFEFF${['---', 'name: deploy', ...hookLine('./bom.sh'), '---'].join('\n')}`;
  t.match(valueOf(text), { name: 'deploy' });
  t.strictSame(
    layoutWithSkill(text).plugins[0]!.hooks.map((h) => h.location),
    [`alpha/skills/deploy/SKILL.md:${lineWith(text, './bom.sh')}`],
  );
});

t.test('no frontmatter: unterminated, not on line 1, or an opening line with more on it', async (t) => {
  t.equal(frontmatterOf('---\nname: x\nhooks:\n  Stop: []\n'), null, 'unterminated: the whole file is body');
  t.equal(frontmatterOf('\n---\nname: x\n---\n'), null);
  t.equal(frontmatterOf('--- name: x\n---\n'), null);
  t.equal(frontmatterOf('----\nname: x\n---\n'), null);
  const layout = layoutWithSkill(['---', 'name: renamed', ...hookLine('./never.sh')].join('\n'));
  t.match(
    layout.plugins[0],
    { skills: [{ name: 'deploy' }], hooks: [] },
    'an unterminated frontmatter declares nothing',
  );
  t.strictSame(layout.problems, []);
});

t.test('an empty frontmatter and one that is not a mapping give no fields', async (t) => {
  t.equal(valueOf('---\n---\nBody'), null);
  t.strictSame(valueOf('---\n- name: x\n- hooks: {}\n---\n'), [{ name: 'x' }, { hooks: {} }]);
  t.equal(valueOf('---\njust text\n---\n'), 'just text');
  const layout = layoutWithSkill(
    ['---', '- name: renamed', '  hooks:', '    Stop: [{hooks: [{type: command, command: ./x.sh}]}]', '---'].join('\n'),
  );
  t.match(layout.plugins[0], { skills: [{ name: 'deploy' }], hooks: [] }, 'Claude Code reads no field from a list');
  t.strictSame(layout.problems, []);
});

t.test(
  'duplicate keys: Claude Code reads no field, a last-wins parser would; the hooks are vetted either way',
  async (t) => {
    const skill = ['---', 'name: first', 'name: second', ...hookLine('./dup.sh'), '---'].join('\n');
    t.match(frontmatterOf(skill), {
      ok: false,
      line: lineWith(skill, 'name: second'),
      mentionsHooks: true,
      others: [{ line: lineWith(skill, 'name: second'), doc: { value: { name: 'second' } } }],
    });
    const layout = layoutWithSkill(skill);
    t.strictSame(
      layout.plugins[0]!.skills.map((s) => s.name),
      ['deploy'],
      'the name falls back to the directory, as in Claude Code',
    );
    t.strictSame(
      layout.plugins[0]!.hooks.map((h) => [h.runs, h.location]),
      [['./dup.sh', `alpha/skills/deploy/SKILL.md:${lineWith(skill, './dup.sh')}`]],
    );
    t.strictSame(
      layout.problems.map((p) => [p.area, p.kind, p.location]),
      [
        ['skills', 'invalid', `alpha/skills/deploy/SKILL.md:${lineWith(skill, 'name: second')}`],
        ['skills', 'invalid', `alpha/skills/deploy/SKILL.md:${lineWith(skill, 'name: second')}`],
      ],
    );
    t.match(layout.problems[1]!.message, /repeats a key/);
  },
);

t.test('invalid YAML: Claude Code retries with indicator-holding values quoted, as the gateway does', async (t) => {
  const skill = [
    '---',
    'name: deploy',
    'description: Use it when: the user ships',
    'paths: src/**/*.{ts,tsx}',
    ...hookLine('./after-retry.sh'),
    '---',
  ].join('\n');
  t.match(valueOf(skill), { description: 'Use it when: the user ships', paths: 'src/**/*.{ts,tsx}' });
  t.strictSame(
    layoutWithSkill(skill).plugins[0]!.hooks.map((h) => h.location),
    [`alpha/skills/deploy/SKILL.md:${lineWith(skill, './after-retry.sh')}`],
  );
  t.match(valueOf('---\nbs: a\\b "c": d\n---\n'), { bs: 'a\\b "c": d' }, 'backslashes and quotes survive the quoting');
  const broken = ['---', 'name: deploy', ...hookLine('[unclosed'), '---'].join('\n');
  t.match(frontmatterOf(broken), { ok: false, line: lineWith(broken, '[unclosed'), mentionsHooks: true, others: [] });
  const layout = layoutWithSkill(broken);
  t.strictSame(
    layout.problems.map((p) => [p.area, p.location]),
    [
      ['skills', `alpha/skills/deploy/SKILL.md:${lineWith(broken, '[unclosed')}`],
      ['hooks', `alpha/skills/deploy/SKILL.md:${lineWith(broken, '[unclosed')}`],
    ],
    'what neither attempt reads is recorded, and the hooks it mentions are flagged',
  );
});

t.test(
  'a --- inside a line closes the frontmatter for Claude Code; the reading up to a --- line is vetted too',
  async (t) => {
    const skill = [
      '---',
      'name: deploy',
      'description: before---after',
      ...hookLine('./hidden.sh'),
      '---',
      'Body',
    ].join('\n');
    t.match(frontmatterOf(skill), {
      ok: true,
      doc: { value: { name: 'deploy', description: 'before' } },
      others: [{ line: lineWith(skill, 'before---') }],
    });
    const layout = layoutWithSkill(skill);
    t.strictSame(
      layout.plugins[0]!.hooks.map((h) => h.location),
      [`alpha/skills/deploy/SKILL.md:${lineWith(skill, './hidden.sh')}`],
    );
    t.match(layout.problems, [{ area: 'skills', kind: 'invalid', message: /inside a line/ }]);
  },
);

t.test('hooks both readings share are listed once', async (t) => {
  const skill = ['---', ...hookLine('./shared.sh'), 'note: a---b', '---'].join('\n');
  t.equal(layoutWithSkill(skill).plugins[0]!.hooks.length, 1);
});

t.test(
  'YAML 1.2 as the yaml package reads it: yes and on are text, __proto__ is an own key, aliases resolve',
  async (t) => {
    const value = valueOf(
      '---\nuser-invocable: yes\nbackground: on\nmaxTurns: 3\n__proto__:\n  hooks: {}\n---\n',
    ) as Record<string, unknown>;
    t.strictSame([value['user-invocable'], value.background, value.maxTurns], ['yes', 'on', 3]);
    t.equal(Object.getPrototypeOf(value), Object.prototype);
    t.equal(value.hooks, undefined, 'a __proto__ key lends no hooks');
    const skill = [
      '---',
      'x-shared: &run {type: command, command: ./aliased.sh}',
      'hooks:',
      '  Stop:',
      '    - hooks: [*run]',
      '---',
    ].join('\n');
    t.strictSame(
      layoutWithSkill(skill).plugins[0]!.hooks.map((h) => [h.runs, h.location]),
      [['./aliased.sh', `alpha/skills/deploy/SKILL.md:${lineWith(skill, '&run')}`]],
    );
  },
);

t.test('an alias naming no anchor is an error at the alias', async (t) => {
  t.match(frontmatterOf('---\nname: s\nhooks:\n  Stop: *missing\n---\n'), { ok: false, line: 4, mentionsHooks: true });
});
