import t from 'tap';
import { manifestConnector } from '../../../../../src/domain/vetting/connectors/manifest.connector.ts';
import { stateOf, type Finding } from '../../../../../src/domain/kernel/findings.ts';
import { scanInput, type FileContent, json, lineWith } from '../../../../support/scan-input.ts';

const M = '.claude-plugin/marketplace.json';
const marketplace = (plugins: unknown[], extra: Record<string, unknown> = {}) =>
  json({ name: 'acme', owner: { name: 'Acme' }, ...extra, plugins });
const scan = (files: Record<string, FileContent>, maxFileBytes?: number) =>
  manifestConnector.scan(scanInput(files, maxFileBytes === undefined ? {} : { maxFileBytes }));
const brief = (findings: readonly Finding[]) => findings.map((f) => [f.id, f.severity, f.location]);

t.test('the connector object', async (t) => {
  t.equal(manifestConnector.name, 'manifest');
  t.type(manifestConnector.description, 'string');
});

t.test('a clean marketplace passes', async (t) => {
  const report = scan({
    [M]: marketplace([
      { name: 'alpha', source: './plugins/alpha', description: 'a', version: '1.0.0', keywords: ['x'] },
      { name: 'beta', source: './plugins/beta', strict: false, skills: ['./skills'] },
      { name: 'remote', source: { source: 'github', repo: 'acme/remote' } },
    ]),
    'plugins/alpha/.claude-plugin/plugin.json': json({ name: 'alpha', version: '1.0.0', commands: './cmds' }),
    'plugins/alpha/cmds/a.md': 'x',
    'plugins/beta/skills/s/SKILL.md': 'x',
  });
  t.strictSame(report.findings, []);
  t.equal(stateOf(report.findings), 'PASS');
  t.equal(report.detail, '3 plugins, 1 plugin manifest examined');
});

t.test('a missing or invalid marketplace.json blocks, at the line of the error', async (t) => {
  t.strictSame(brief(scan({}).findings), [['manifest-missing', 'HIGH', `${M}:1`]]);
  const report = scan({ [M]: '{\n  "name": "acme",\n  "plugins": [\n}\n' });
  t.strictSame(brief(report.findings), [['manifest-invalid-json', 'HIGH', `${M}:4`]]);
  t.match(report.findings[0]!.message, /is not valid JSON \(line 4\)/);
  t.equal(stateOf(report.findings), 'FAIL');
  t.strictSame(brief(scan({ [M]: '[1, 2]' }).findings), [['manifest-invalid-structure', 'HIGH', `${M}:1`]]);
});

t.test('missing required fields block: name, owner, plugins; entries without name or source', async (t) => {
  t.strictSame(brief(scan({ [M]: json({ plugins: [] }) }).findings), [
    ['manifest-missing-field', 'HIGH', `${M}:1`],
    ['manifest-missing-field', 'HIGH', `${M}:1`],
  ]);
  t.match(scan({ [M]: json({ name: 'acme', owner: {}, plugins: [] }) }).findings, [
    { id: 'manifest-missing-field', message: /owner with a name/ },
  ]);
  t.match(scan({ [M]: json({ name: 'acme', owner: { name: 'A' } }) }).findings, [
    { id: 'manifest-missing-field', message: /no plugins list/ },
  ]);
  const text = marketplace([{ source: './a' }, { name: 'b' }, 'c']);
  t.strictSame(brief(scan({ [M]: text, 'a/x': 'x', 'b/x': 'x' }).findings), [
    ['manifest-missing-field', 'HIGH', `${M}:${lineWith(text, '"./a"') - 1}`],
    ['manifest-missing-field', 'HIGH', `${M}:${lineWith(text, '"name": "b"') - 1}`],
    ['manifest-invalid-entry', 'HIGH', `${M}:${lineWith(text, '"c"')}`],
  ]);
});

t.test('a plugin name listed twice blocks, at the second entry', async (t) => {
  const text = marketplace([
    { name: 'alpha', source: './a' },
    { name: 'alpha', source: './b' },
  ]);
  t.strictSame(brief(scan({ [M]: text, 'a/x': 'x', 'b/x': 'x' }).findings), [
    ['manifest-duplicate-plugin', 'HIGH', `${M}:${lineWith(text, '"name": "alpha"', 2)}`],
  ]);
});

t.test('non-kebab names warn', async (t) => {
  const text = json({
    name: 'Acme Tools',
    owner: { name: 'A' },
    plugins: [{ name: 'Explanatory Output Style', source: './a' }],
  });
  const report = scan({ [M]: text, 'a/.claude-plugin/plugin.json': json({ name: 'Odd_Name' }) });
  t.strictSame(brief(report.findings), [
    ['manifest-non-kebab-name', 'LOW', `${M}:2`],
    ['manifest-non-kebab-name', 'LOW', `${M}:${lineWith(text, 'Explanatory')}`],
    ['manifest-non-kebab-name', 'LOW', 'a/.claude-plugin/plugin.json:2'],
  ]);
  t.equal(stateOf(report.findings), 'WARN');
  t.match(scan({ [M]: marketplace([], { name: 'claude-plugins-official' }) }).findings, [
    { id: 'manifest-reserved-name', severity: 'MEDIUM' },
  ]);
});

t.test(
  'unsupported sources block: npm, archive, command, pip, a bare git URL string, a bare name without pluginRoot',
  async (t) => {
    const text = marketplace([
      { name: 'n', source: { source: 'npm', package: 'x' } },
      { name: 'ar', source: { source: 'archive', url: 'https://x.example/p.zip' } },
      { name: 'c', source: { source: 'command', command: 'make-plugin' } },
      { name: 'p', source: { source: 'pip', package: 'x' } },
      { name: 'g', source: 'https://github.com/acme/x.git' },
      { name: 'b', source: 'bare' },
    ]);
    const findings = scan({ [M]: text }).findings;
    // At the entry's source key: for an object source, the line that opens it.
    const objectSource = (kind: string) => lineWith(text, `"source": "${kind}"`) - 1;
    t.strictSame(
      brief(findings),
      [
        objectSource('npm'),
        objectSource('archive'),
        objectSource('command'),
        objectSource('pip'),
        lineWith(text, '"source": "https://github.com'),
        lineWith(text, '"source": "bare"'),
      ].map((line) => ['manifest-unsupported-source', 'HIGH', `${M}:${line}`]),
    );
    t.match(findings[0]!.message, /plugin 'n': source type 'npm' is not supported/);
  },
);

t.test('paths escaping the plugin block: sources, pluginRoot, component paths', async (t) => {
  const text = marketplace(
    [
      { name: 'up', source: './../../etc' },
      { name: 'alpha', source: './alpha', commands: ['../beta/commands'] },
      { name: 'bare', source: 'bare' },
    ],
    { metadata: { pluginRoot: '../outside' } },
  );
  const pluginJson = json({ name: 'alpha', hooks: '/etc/hooks.json', skills: '${CLAUDE_PLUGIN_ROOT}/../../x' });
  const findings = scan({ [M]: text, 'alpha/.claude-plugin/plugin.json': pluginJson }).findings;
  t.strictSame(brief(findings), [
    ['manifest-path-escapes', 'HIGH', `${M}:${lineWith(text, '"pluginRoot"')}`],
    ['manifest-path-escapes', 'HIGH', `${M}:${lineWith(text, '"./../../etc"')}`],
    ['manifest-path-escapes', 'HIGH', `alpha/.claude-plugin/plugin.json:${lineWith(pluginJson, '"skills"')}`],
    ['manifest-path-escapes', 'HIGH', `${M}:${lineWith(text, '"../beta/commands"')}`],
    ['manifest-path-escapes', 'HIGH', `alpha/.claude-plugin/plugin.json:${lineWith(pluginJson, '"hooks"')}`],
  ]);
  t.equal(stateOf(findings), 'FAIL');
});

t.test(
  'plugin.json: invalid JSON and a missing name block; wrong field types, conflicts and dead paths warn',
  async (t) => {
    const text = marketplace([
      { name: 'broken', source: './broken' },
      { name: 'nameless', source: './nameless' },
      { name: 'typed', source: './typed', version: '2.0.0', strict: false },
      { name: 'ghost', source: './ghost' },
    ]);
    const typed = json({ name: 'typed', version: '1.0.0', keywords: 'a string', commands: 7, agents: './nowhere' });
    const findings = scan({
      [M]: text,
      'broken/.claude-plugin/plugin.json': '{\n  "name": "broken"\n  "x": 1\n}',
      'nameless/.claude-plugin/plugin.json': json({ description: 'no name' }),
      'typed/.claude-plugin/plugin.json': typed,
    }).findings;
    t.strictSame(brief(findings), [
      ['manifest-invalid-json', 'HIGH', 'broken/.claude-plugin/plugin.json:3'],
      ['manifest-missing-field', 'HIGH', 'nameless/.claude-plugin/plugin.json:1'],
      ['manifest-invalid-field', 'MEDIUM', `typed/.claude-plugin/plugin.json:${lineWith(typed, '"keywords"')}`],
      ['manifest-conflicting-manifests', 'MEDIUM', `${M}:${lineWith(text, '"name": "typed"') - 1}`],
      ['manifest-version-mismatch', 'LOW', `typed/.claude-plugin/plugin.json:${lineWith(typed, '"version"')}`],
      ['manifest-plugin-not-found', 'MEDIUM', `${M}:${lineWith(text, '"name": "ghost"') - 1}`],
      ['manifest-invalid-field', 'MEDIUM', `typed/.claude-plugin/plugin.json:${lineWith(typed, '"commands"')}`],
      ['manifest-missing-path', 'LOW', `typed/.claude-plugin/plugin.json:${lineWith(typed, '"agents"')}`],
    ]);
  },
);

t.test('an oversized manifest is reported as not scanned', async (t) => {
  const report = scan({ [M]: marketplace([{ name: 'a', source: './a' }]) }, 20);
  t.strictSame(brief(report.findings), [['file-not-scanned', 'INFO', `${M}:1`]]);
  t.equal(stateOf(report.findings), 'PASS');
  const plugin = scan(
    {
      [M]: json({ name: 'a', owner: { name: 'o' }, plugins: [{ name: 'a', source: './a' }] }).replace(/\s+/g, ''),
      'a/.claude-plugin/plugin.json': json({ name: 'a', description: 'x'.repeat(200) }),
    },
    150,
  );
  t.strictSame(brief(plugin.findings), [['file-not-scanned', 'INFO', 'a/.claude-plugin/plugin.json:1']]);
});
