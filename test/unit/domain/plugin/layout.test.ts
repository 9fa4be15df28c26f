import t from 'tap';
import { frontmatterOf } from '../../../../src/domain/plugin/frontmatter.ts';
import { parseJson } from '../../../../src/domain/plugin/json-document.ts';
import { readLayout } from '../../../../src/domain/plugin/layout.ts';
import { inside, resolveSource, sourceText } from '../../../../src/domain/plugin/paths.ts';
import { scanInput, type FileContent, json, lineWith } from '../../../support/scan-input.ts';

const marketplace = (plugins: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'acme', owner: { name: 'Acme' }, ...extra, plugins }, null, 2);
const layoutOf = (files: Record<string, FileContent>, maxFileBytes?: number) =>
  readLayout(scanInput(files, maxFileBytes === undefined ? {} : { maxFileBytes }).byPath);
/** The line (from 1) of the nth line of `text` that contains `needle`. */

t.test(
  'default locations: skills/<name>/SKILL.md, commands/*.md, agents/*.md, hooks/hooks.json, .mcp.json, .lsp.json',
  async (t) => {
    const hooksJson = json({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }] },
    });
    const layout = layoutOf({
      '.claude-plugin/marketplace.json': marketplace([
        { name: 'alpha', source: './plugins/alpha', description: 'from the entry' },
      ]),
      'plugins/alpha/.claude-plugin/plugin.json': json({ name: 'alpha', description: 'from plugin.json' }),
      'plugins/alpha/skills/review/SKILL.md': '---\nname: code-review\ndescription: reviews\n---\nBody',
      'plugins/alpha/skills/plain/SKILL.md': 'no frontmatter',
      'plugins/alpha/skills/notes.md': 'not a skill',
      'plugins/alpha/commands/ship.md': '---\ndescription: ship it\n---\n',
      'plugins/alpha/agents/auditor.md': '---\nname: security-auditor\n---\n',
      'plugins/alpha/hooks/hooks.json': hooksJson,
      'plugins/alpha/.mcp.json': json({
        mcpServers: { db: { command: 'db-server', args: ['--port', '5'], env: { A: 'b' } } },
      }),
      'plugins/alpha/.lsp.json': json({ clangd: { command: 'clangd', extensionToLanguage: { '.c': 'c' } } }),
    });
    t.strictSame(layout.problems, []);
    const [alpha] = layout.plugins;
    t.match(alpha, {
      name: 'alpha',
      description: 'from the entry',
      source: './plugins/alpha',
      root: 'plugins/alpha',
      strict: true,
      found: true,
    });
    t.strictSame(
      alpha!.skills,
      [
        { name: 'plain', path: 'plugins/alpha/skills/plain/SKILL.md', dir: 'plugins/alpha/skills/plain' },
        { name: 'code-review', path: 'plugins/alpha/skills/review/SKILL.md', dir: 'plugins/alpha/skills/review' },
      ],
      'frontmatter name wins over the directory',
    );
    t.strictSame(alpha!.commands, [{ name: 'ship', path: 'plugins/alpha/commands/ship.md' }]);
    t.strictSame(alpha!.agents, [{ name: 'security-auditor', path: 'plugins/alpha/agents/auditor.md' }]);
    t.strictSame(alpha!.hooks, [
      {
        event: 'PreToolUse',
        matcher: 'Bash',
        type: 'command',
        runs: 'echo pre',
        location: `plugins/alpha/hooks/hooks.json:${lineWith(hooksJson, '"command":')}`,
        declaredBy: 'plugin',
      },
    ]);
    t.strictSame(alpha!.mcpServers, [
      {
        name: 'db',
        path: 'plugins/alpha/.mcp.json',
        location: 'plugins/alpha/.mcp.json:3',
        config: { command: 'db-server', args: ['--port', '5'], url: null, type: null, env: { A: 'b' } },
      },
    ]);
    t.match(alpha!.lspServers, [
      {
        name: 'clangd',
        path: 'plugins/alpha/.lsp.json',
        location: 'plugins/alpha/.lsp.json:2',
        config: { command: 'clangd' },
      },
    ]);
  },
);

t.test(
  'description falls back to plugin.json; a root source is ""; metadata.pluginRoot resolves bare names',
  async (t) => {
    const layout = layoutOf({
      '.claude-plugin/marketplace.json': marketplace(
        [
          { name: 'root', source: './' },
          { name: 'bare', source: 'bare' },
        ],
        { metadata: { pluginRoot: './plugins' } },
      ),
      '.claude-plugin/plugin.json': json({ name: 'root', description: 'the root plugin' }),
      'plugins/bare/commands/x.md': 'x',
    });
    t.match(layout.plugins, [
      { name: 'root', root: '', description: 'the root plugin' },
      {
        name: 'bare',
        root: 'plugins/bare',
        description: null,
        commands: [{ name: 'x', path: 'plugins/bare/commands/x.md' }],
      },
    ]);
  },
);

t.test('overrides: skills add to the default scan, commands and agents replace theirs', async (t) => {
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': marketplace([{ name: 'alpha', source: './alpha', agents: './team/lead.md' }]),
    'alpha/.claude-plugin/plugin.json': json({
      name: 'alpha',
      skills: ['./extra-skills', './single'],
      commands: ['./cmds'],
    }),
    'alpha/skills/default/SKILL.md': 'x',
    'alpha/extra-skills/one/SKILL.md': 'x',
    'alpha/extra-skills/two/SKILL.md': 'x',
    'alpha/single/SKILL.md': 'x',
    'alpha/commands/ignored.md': 'replaced by ./cmds',
    'alpha/cmds/deploy.md': 'x',
    'alpha/cmds/nested/rollback.md': 'x',
    'alpha/cmds/readme.txt': 'not markdown',
    'alpha/agents/ignored.md': 'replaced by the entry',
    'alpha/team/lead.md': 'x',
  });
  const [alpha] = layout.plugins;
  t.strictSame(
    alpha!.skills.map((s) => s.path),
    [
      'alpha/skills/default/SKILL.md',
      'alpha/extra-skills/one/SKILL.md',
      'alpha/extra-skills/two/SKILL.md',
      'alpha/single/SKILL.md',
    ],
  );
  t.strictSame(
    alpha!.skills.map((s) => s.name),
    ['default', 'one', 'two', 'single'],
  );
  t.strictSame(alpha!.commands, [
    { name: 'deploy', path: 'alpha/cmds/deploy.md' },
    { name: 'rollback', path: 'alpha/cmds/nested/rollback.md' },
  ]);
  t.strictSame(alpha!.agents, [{ name: 'lead', path: 'alpha/team/lead.md' }]);
  t.strictSame(layout.problems, []);
});

t.test(
  'a marketplace-root plugin with a skills list replaces the default scan (anthropics/skills pattern)',
  async (t) => {
    const layout = layoutOf({
      '.claude-plugin/marketplace.json': marketplace([
        { name: 'docs', source: './', strict: false, skills: ['./document-skills/xlsx'] },
      ]),
      'document-skills/xlsx/SKILL.md': '---\nname: xlsx\n---\n',
      'skills/other/SKILL.md': 'not part of this plugin',
    });
    t.match(layout.plugins[0], { strict: false, skills: [{ name: 'xlsx', path: 'document-skills/xlsx/SKILL.md' }] });
    t.equal(layout.plugins[0]!.skills.length, 1);
  },
);

t.test('a plugin-root SKILL.md with no skills dir is a single-skill plugin', async (t) => {
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': marketplace([{ name: 'solo', source: './solo' }]),
    'solo/SKILL.md': 'no name in frontmatter',
  });
  t.strictSame(layout.plugins[0]!.skills, [{ name: 'solo', path: 'solo/SKILL.md', dir: 'solo' }]);
});

t.test('inline hooks and servers in plugin.json and in the entry, and extra hook files', async (t) => {
  const manifestText = marketplace([
    {
      name: 'alpha',
      source: './alpha',
      hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'Is the work done?' }] }] },
      lspServers: { gopls: { command: 'gopls' } },
    },
  ]);
  const hooksJson = json({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo start' }] }] } });
  const moreHooks = json({ PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'fmt' }] }] });
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': manifestText,
    'alpha/.claude-plugin/plugin.json': json({
      name: 'alpha',
      hooks: './config/more-hooks.json',
      mcpServers: { inline: { type: 'http', url: 'https://mcp.example.com' } },
    }),
    'alpha/hooks/hooks.json': hooksJson,
    'alpha/config/more-hooks.json': moreHooks,
    'alpha/.mcp.json': json({ filed: { command: 'srv' } }),
  });
  t.strictSame(layout.problems, []);
  const [alpha] = layout.plugins;
  t.strictSame(alpha!.hooks, [
    {
      event: 'SessionStart',
      matcher: null,
      type: 'command',
      runs: 'echo start',
      location: `alpha/hooks/hooks.json:${lineWith(hooksJson, '"command":')}`,
      declaredBy: 'plugin',
    },
    {
      event: 'PostToolUse',
      matcher: 'Write|Edit',
      type: 'command',
      runs: 'fmt',
      location: `alpha/config/more-hooks.json:${lineWith(moreHooks, '"command":')}`,
      declaredBy: 'plugin',
    },
    {
      event: 'Stop',
      matcher: null,
      type: 'prompt',
      runs: 'Is the work done?',
      location: `.claude-plugin/marketplace.json:${lineWith(manifestText, '"prompt":')}`,
      declaredBy: 'plugin',
    },
  ]);
  t.strictSame(
    alpha!.mcpServers.map((s) => [s.name, s.path, s.config.type, s.config.url]),
    [
      ['filed', 'alpha/.mcp.json', null, null],
      ['inline', 'alpha/.claude-plugin/plugin.json', 'http', 'https://mcp.example.com'],
    ],
  );
  t.strictSame(
    alpha!.lspServers.map((s) => [s.name, s.location]),
    [['gopls', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"gopls"')}`]],
  );
});

t.test('hooks in skill, command and agent frontmatter, with declaredBy and the line of the command', async (t) => {
  const skill = [
    '---',
    'name: deploy',
    'description: >',
    '  Deploys things.',
    'hooks:',
    '  PreToolUse:',
    '    - matcher: "Bash"',
    '      hooks:',
    '        - type: command',
    '          command: "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"',
    '          once: true',
    '---',
    'Body',
  ].join('\n');
  const agent = '---\nname: reviewer\nhooks:\n  Stop:\n  - hooks:\n    - {type: command, command: echo done}\n---\n';
  const command =
    "---\nhooks:\n  UserPromptSubmit:\n    - hooks:\n        - type: command\n          command: 'echo ''hi'''\n---\n";
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': marketplace([{ name: 'alpha', source: './alpha' }]),
    'alpha/skills/deploy/SKILL.md': skill,
    'alpha/agents/reviewer.md': agent,
    'alpha/commands/greet.md': command,
  });
  t.strictSame(layout.problems, []);
  t.strictSame(layout.plugins[0]!.hooks, [
    {
      event: 'PreToolUse',
      matcher: 'Bash',
      type: 'command',
      runs: '${CLAUDE_PLUGIN_ROOT}/scripts/check.sh',
      location: 'alpha/skills/deploy/SKILL.md:10',
      declaredBy: 'skill deploy',
    },
    {
      event: 'UserPromptSubmit',
      matcher: null,
      type: 'command',
      runs: "echo 'hi'",
      location: 'alpha/commands/greet.md:6',
      declaredBy: 'skill greet',
    },
    {
      event: 'Stop',
      matcher: null,
      type: 'command',
      runs: 'echo done',
      location: 'alpha/agents/reviewer.md:6',
      declaredBy: 'agent reviewer',
    },
  ]);
});

t.test('paths escaping the plugin are ignored and collected as problems', async (t) => {
  const manifestText = marketplace([
    { name: 'alpha', source: './alpha', commands: ['../beta/commands', './cmds'] },
    { name: 'up', source: './../outside' },
  ]);
  const pluginJson = json({
    name: 'alpha',
    hooks: '../../etc/hooks.json',
    mcpServers: '/etc/mcp.json',
    agents: ['${CLAUDE_PLUGIN_ROOT}/../x.md'],
  });
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': manifestText,
    'alpha/.claude-plugin/plugin.json': pluginJson,
    'alpha/cmds/ok.md': 'x',
    'beta/commands/stolen.md': 'x',
    'etc/hooks.json': json({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } }),
  });
  const [alpha, up] = layout.plugins;
  t.strictSame(alpha!.commands, [{ name: 'ok', path: 'alpha/cmds/ok.md' }]);
  t.strictSame([alpha!.hooks, alpha!.mcpServers, alpha!.agents], [[], [], []]);
  t.match(up, { name: 'up', root: null, skills: [], hooks: [] });
  const escapes = layout.problems.filter((p) => p.kind === 'escapes');
  t.strictSame(
    escapes.map((p) => [p.area, p.location]),
    [
      ['commands', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"../beta/commands"')}`],
      ['agents', `alpha/.claude-plugin/plugin.json:${lineWith(pluginJson, '/../x.md')}`],
      ['hooks', `alpha/.claude-plugin/plugin.json:${lineWith(pluginJson, '"hooks"')}`],
      ['mcpServers', `alpha/.claude-plugin/plugin.json:${lineWith(pluginJson, '"mcpServers"')}`],
      ['marketplace', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"name": "up"') - 1}`],
    ],
  );
  t.match(escapes[0]!.message, /'\.\.\/beta\/commands' escapes the plugin/);
});

t.test('unparseable declarations are left out, recorded, and never throw', async (t) => {
  const manifestText = marketplace([
    { name: 'alpha', source: './alpha', commands: 42 },
    'not an entry',
    { source: './nameless' },
    { name: 'npm-one', source: { source: 'npm', package: 'left-pad' } },
  ]);
  const hooksJson = json({
    hooks: {
      PreToolUse: 'not a list',
      Stop: [{ hooks: [{ type: 'command', command: 'echo kept' }, { type: 'command' }, 7] }],
    },
  });
  const lspJson = json({
    good: { command: 'ok' },
    bad: { command: 3 },
    worse: 'x',
    env: { command: 'y', env: { N: 1 } },
  });
  const layout = layoutOf({
    '.claude-plugin/marketplace.json': manifestText,
    'alpha/.claude-plugin/plugin.json': '{"name": "alpha",',
    'alpha/skills/ok/SKILL.md': '---\nname: ok\nhooks:\n  Stop: [unclosed\n---\n',
    'alpha/skills/fine/SKILL.md': '---\nname: fine\n---\n',
    'alpha/hooks/hooks.json': hooksJson,
    'alpha/.mcp.json': '{ not json',
    'alpha/.lsp.json': lspJson,
    'alpha/agents/a.md': Buffer.from([0, 1, 2, 3]),
  });
  const [alpha, npm] = layout.plugins;
  t.equal(layout.plugins.length, 2, 'entries without an object or a name are skipped');
  t.strictSame(
    alpha!.skills.map((s) => s.name),
    ['fine', 'ok'],
    'a skill with broken frontmatter keeps its directory name… and stays listed',
  );
  t.strictSame(
    alpha!.hooks.map((h) => h.runs),
    ['echo kept'],
  );
  t.strictSame(alpha!.mcpServers, []);
  t.strictSame(
    alpha!.lspServers.map((s) => s.name),
    ['good'],
  );
  t.strictSame(alpha!.commands, [], 'a commands field of the wrong type declares nothing');
  t.match(npm, { source: 'npm:left-pad', root: null });
  const byArea = (area: string) => layout.problems.filter((p) => p.area === area).map((p) => [p.kind, p.location]);
  t.strictSame(byArea('plugin'), [['syntax', 'alpha/.claude-plugin/plugin.json:1']]);
  t.strictSame(byArea('marketplace'), [
    ['invalid', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"not an entry"')}`],
    ['invalid', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"./nameless"') - 1}`],
    ['unsupported', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"npm-one"') - 1}`],
  ]);
  t.strictSame(byArea('commands'), [
    ['invalid', `.claude-plugin/marketplace.json:${lineWith(manifestText, '"commands": 42')}`],
  ]);
  t.strictSame(byArea('skills'), [['invalid', 'alpha/skills/ok/SKILL.md:4']]);
  t.strictSame(byArea('hooks'), [
    ['invalid', 'alpha/skills/ok/SKILL.md:4'],
    ['invalid', `alpha/hooks/hooks.json:${lineWith(hooksJson, '"PreToolUse"')}`],
    ['invalid', `alpha/hooks/hooks.json:${lineWith(hooksJson, '{', 5)}`],
    ['invalid', `alpha/hooks/hooks.json:${lineWith(hooksJson, '7')}`],
  ]);
  t.strictSame(byArea('mcpServers'), [['syntax', 'alpha/.mcp.json:1']]);
  t.strictSame(
    byArea('lspServers').map(([, l]) => l),
    ['"bad"', '"worse"', '"env"'].map((key) => `alpha/.lsp.json:${lineWith(lspJson, key)}`),
  );
});

t.test('a missing, invalid or oversized marketplace.json gives no plugins', async (t) => {
  t.match(layoutOf({}), { manifest: { status: 'missing' }, plugins: [], problems: [] });
  t.match(layoutOf({ '.claude-plugin/marketplace.json': '{\n"plugins": [\n}' }), {
    manifest: { status: 'invalid', line: 3 },
    plugins: [],
    problems: [{ area: 'marketplace', kind: 'syntax', location: '.claude-plugin/marketplace.json:3' }],
  });
  t.match(layoutOf({ '.claude-plugin/marketplace.json': '{"plugins": {}}' }), {
    manifest: { status: 'ok' },
    plugins: [],
    problems: [{ kind: 'invalid' }],
  });
  const big = layoutOf({ '.claude-plugin/marketplace.json': marketplace([]) }, 10);
  t.match(big, {
    manifest: { status: 'oversized' },
    plugins: [],
    unread: [{ area: 'marketplace', file: { path: '.claude-plugin/marketplace.json' } }],
  });
});

t.test('oversized component files are listed as unread', async (t) => {
  const layout = layoutOf(
    {
      '.claude-plugin/marketplace.json': 'x'.repeat(10) && JSON.stringify({ plugins: [{ name: 'a', source: './a' }] }),
      'a/hooks/hooks.json': ' '.repeat(300),
      'a/skills/s/SKILL.md': `---\nname: s\n---\n${' '.repeat(300)}`,
    },
    200,
  );
  t.strictSame(layout.unread.map((u) => [u.area, u.file.path]).sort(), [
    ['hooks', 'a/hooks/hooks.json'],
    ['skills', 'a/skills/s/SKILL.md'],
  ]);
  t.strictSame(
    layout.plugins[0]!.skills.map((s) => s.name),
    ['s'],
  );
});

t.test('external sources are not content here; sources get a short form', async (t) => {
  t.equal(sourceText('./plugins/a'), './plugins/a');
  t.equal(sourceText({ source: 'github', repo: 'acme/tools', ref: 'main' }), 'github:acme/tools');
  t.equal(sourceText({ source: 'url', url: 'https://git.example.com/x.git' }), 'url:https://git.example.com/x.git');
  t.equal(sourceText({ source: 'git-subdir', url: 'acme/mono', path: 'plugins/x' }), 'git-subdir:acme/mono//plugins/x');
  t.equal(sourceText({ source: 'npm', package: '@acme/p' }), 'npm:@acme/p');
  t.equal(sourceText({ source: 'command', command: 'make-plugin' }), 'command:make-plugin');
  t.strictSame(resolveSource({ source: 'github', repo: 'a/b' }, undefined), { root: null, problem: null });
  t.match(resolveSource({ source: 'archive', url: 'https://x/y.zip' }, undefined), {
    root: null,
    problem: { kind: 'unsupported' },
  });
  t.match(resolveSource('https://github.com/a/b.git', undefined), { root: null, problem: { kind: 'unsupported' } });
  t.match(resolveSource('bare', undefined), { problem: { kind: 'unsupported' } });
  t.match(resolveSource('./a/../../b', undefined), { problem: { kind: 'escapes' } });
  t.strictSame(resolveSource('./.gateway-external/x/', undefined), { root: '.gateway-external/x', problem: null });
  t.strictSame(resolveSource(undefined, undefined), {
    root: null,
    problem: { kind: 'invalid', message: 'has no source' },
  });
});

t.test('inside: normalised paths in a base, null when escaping or absolute', async (t) => {
  t.equal(inside('p', './a/./b/'), 'p/a/b');
  t.equal(inside('p', 'a/../b'), 'p/b');
  t.equal(inside('', '.'), '');
  t.equal(inside('p', '${CLAUDE_PLUGIN_ROOT}/hooks/x.json'), 'p/hooks/x.json');
  for (const path of ['../x', './a/../../x', '/etc/passwd', '~/x', 'C:/x', 'a\\b'])
    t.equal(inside('p', path), null, path);
});

t.test('parseJson gives lines of keys and items, and the line of a syntax error', async (t) => {
  const doc = parseJson('{\n  "a": [\n    1,\n    {"b": "x"}\n  ],\n  "__proto__": 3\n}');
  if (!('value' in doc)) throw new Error('expected a document');
  const value = doc.value as any;
  t.equal(doc.lineOf(value, 'a'), 2);
  t.equal(doc.lineOf(value.a, 1), 4);
  t.equal(doc.lineOf(value.a[1], 'b'), 4);
  t.equal(Object.getPrototypeOf(value), Object.prototype, '__proto__ is an own key, as with JSON.parse');
  t.equal(value.__proto__, 3);
  t.strictSame(parseJson('{\n  "a": 1,\n}'), { line: 3, message: 'is not valid JSON (line 3)' });
  t.match(parseJson(''), { line: 1 });
  t.match(parseJson('{\n  "plugins": [\n}\n'), { line: 3 }, 'the line of the offending token');
});

t.test('parseJson accepts exactly what JSON.parse accepts', async (t) => {
  const valid = [
    '{}',
    '[]',
    '0',
    '-1.5e+3',
    '"a\\u00e9\\n"',
    ' {"a": [true, false, null, {"b": {}}]} ',
    '{"a": 1, "a": 2}',
  ];
  for (const text of valid) {
    const doc = parseJson(text);
    t.ok('value' in doc, text);
    t.strictSame('value' in doc ? doc.value : null, JSON.parse(text), text);
  }
  const invalid = [
    '',
    '{',
    '{"a": 1,}',
    '[1,]',
    '01',
    '{"a" 1}',
    "{'a': 1}",
    '"tab\there"',
    '"\\x41"',
    '1 2',
    'tru',
    'NaN',
    '{"a": 1}}',
    '\uFEFF{}',
  ];
  for (const text of invalid) {
    t.throws(() => JSON.parse(text), text);
    t.notOk('value' in parseJson(text), text);
  }
});

t.test('frontmatter: the YAML subset hooks and names use', async (t) => {
  const read = (text: string) => {
    const front = frontmatterOf(text);
    return front?.ok ? front.doc.value : front;
  };
  t.equal(read('no frontmatter'), null);
  t.equal(read('---\nname: x\nno closing line'), null);
  t.strictSame(read('---\r\nname: x\r\n---\r\nbody'), { name: 'x' }, 'CRLF');
  t.strictSame(
    read(
      [
        '---',
        'name: "quoted \\u0041"',
        "single: 'it''s'",
        'plain: a value # a comment',
        'folded: >-',
        '  one',
        '  two',
        'literal: |',
        '  line 1',
        '  line 2',
        'list: [Read, "Grep", 3]',
        'map: {a: 1, b: true}',
        'seq:',
        '- first',
        '- key: v',
        '  other: w',
        'empty:',
        'continued: first',
        '  second',
        '---',
      ].join('\n'),
    ),
    {
      name: 'quoted A',
      single: "it's",
      plain: 'a value',
      folded: 'one two',
      literal: 'line 1\nline 2\n',
      list: ['Read', 'Grep', 3],
      map: { a: 1, b: true },
      seq: ['first', { key: 'v', other: 'w' }],
      empty: null,
      continued: 'first second',
    },
  );
  // Anchors and aliases are YAML: Claude Code's parser resolves them, and so does the gateway.
  t.strictSame(read('---\nname: &anchor x\nalias: *anchor\n---\n'), { name: 'x', alias: 'x' });
  t.match(frontmatterOf('---\nname: x\nhooks:\n\tStop: []\n---\n'), { ok: false, line: 4, mentionsHooks: true });
  t.match(frontmatterOf('---\n- a\nb: c\n---\n'), { ok: false, line: 3 });
});
