import t from 'tap';
import { inventoryOf } from '../../../../src/domain/plugin/inventory.ts';
import { readLayout } from '../../../../src/domain/plugin/layout.ts';
import { scanInput, type FileContent, json } from '../../../support/scan-input.ts';

const inventory = (files: Record<string, FileContent>) => inventoryOf(readLayout(scanInput(files).byPath));
const listKeys = ['skills', 'commands', 'agents', 'hooks', 'mcpServers', 'lspServers'];

t.test('the spec shape, with every list present and repository-relative paths', async (t) => {
  const { plugins } = inventory({
    '.claude-plugin/marketplace.json': json({
      name: 'acme',
      owner: { name: 'Acme' },
      plugins: [
        { name: 'full', source: './plugins/full', description: 'everything' },
        { name: 'empty', source: './plugins/empty' },
        { name: 'external', source: { source: 'github', repo: 'acme/tools' } },
      ],
    }),
    'plugins/full/.claude-plugin/plugin.json': json({ name: 'full' }),
    'plugins/full/skills/lint/SKILL.md':
      '---\nname: lint\nhooks:\n  PostToolUse:\n    - matcher: Edit\n      hooks:\n        - type: command\n          command: npm run lint\n---\n',
    'plugins/full/commands/ship.md': 'ship',
    'plugins/full/agents/critic.md': '---\nname: critic\n---\n',
    'plugins/full/hooks/hooks.json': json({ hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'Done?' }] }] } }),
    'plugins/full/.mcp.json': json({ db: { command: 'db' } }),
    'plugins/full/.lsp.json': json({ gopls: { command: 'gopls', extensionToLanguage: { '.go': 'go' } } }),
    'plugins/empty/README.md': 'nothing to install',
  });
  t.strictSame(plugins, [
    {
      name: 'full',
      description: 'everything',
      source: './plugins/full',
      skills: [{ name: 'lint', path: 'plugins/full/skills/lint/SKILL.md' }],
      commands: [{ name: 'ship', path: 'plugins/full/commands/ship.md' }],
      agents: [{ name: 'critic', path: 'plugins/full/agents/critic.md' }],
      hooks: [
        {
          event: 'Stop',
          matcher: null,
          type: 'prompt',
          runs: 'Done?',
          location: 'plugins/full/hooks/hooks.json:8',
          declaredBy: 'plugin',
        },
        {
          event: 'PostToolUse',
          matcher: 'Edit',
          type: 'command',
          runs: 'npm run lint',
          location: 'plugins/full/skills/lint/SKILL.md:8',
          declaredBy: 'skill lint',
        },
      ],
      mcpServers: [{ name: 'db', path: 'plugins/full/.mcp.json' }],
      lspServers: [{ name: 'gopls', path: 'plugins/full/.lsp.json' }],
    },
    {
      name: 'empty',
      description: null,
      source: './plugins/empty',
      skills: [],
      commands: [],
      agents: [],
      hooks: [],
      mcpServers: [],
      lspServers: [],
    },
    {
      name: 'external',
      description: null,
      source: 'github:acme/tools',
      skills: [],
      commands: [],
      agents: [],
      hooks: [],
      mcpServers: [],
      lspServers: [],
    },
  ]);
});

t.test('agent frontmatter hooks are declared by the agent', async (t) => {
  const { plugins } = inventory({
    '.claude-plugin/marketplace.json': json({ plugins: [{ name: 'a', source: './' }] }),
    'agents/guard.md':
      '---\nname: guard\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check\n---\n',
  });
  t.match(plugins[0]!.hooks, [
    { event: 'PreToolUse', matcher: 'Bash', runs: './check', declaredBy: 'agent guard', location: 'agents/guard.md:8' },
  ]);
});

t.test('escaping paths are ignored and unparseable declarations left out, without failing', async (t) => {
  const { plugins } = inventory({
    '.claude-plugin/marketplace.json': json({
      plugins: [{ name: 'a', source: './a', commands: '../b/commands', mcpServers: '../b/.mcp.json', hooks: 12 }],
    }),
    'a/.claude-plugin/plugin.json': '{ broken',
    'a/skills/s/SKILL.md': '---\nname: [unclosed\n---\n',
    'a/hooks/hooks.json': '{"hooks": ',
    'a/.lsp.json': json({ ok: { command: 'ok' }, bad: ['not', 'an', 'object'] }),
    'b/commands/x.md': 'outside a',
    'b/.mcp.json': json({ outside: { command: 'x' } }),
  });
  t.strictSame(plugins, [
    {
      name: 'a',
      description: null,
      source: './a',
      // Claude Code reads `name: [unclosed` on its second attempt, with the value quoted.
      skills: [{ name: '[unclosed', path: 'a/skills/s/SKILL.md' }],
      commands: [],
      agents: [],
      hooks: [],
      mcpServers: [],
      lspServers: [{ name: 'ok', path: 'a/.lsp.json' }],
    },
  ]);
});

t.test('no marketplace, an unreadable one, or one without plugins: no plugins', async (t) => {
  for (const files of [
    {},
    { '.claude-plugin/marketplace.json': '{' },
    { '.claude-plugin/marketplace.json': '[]' },
    { '.claude-plugin/marketplace.json': '{"plugins": []}' },
  ]) {
    t.strictSame(inventory(files), { plugins: [] });
  }
});

t.test('every list is present on every plugin', async (t) => {
  const { plugins } = inventory({
    '.claude-plugin/marketplace.json': json({
      plugins: [
        { name: 'x', source: './x' },
        { name: 'y', source: { source: 'npm', package: 'y' } },
        { name: 'z', source: '../z' },
      ],
    }),
  });
  t.equal(plugins.length, 3);
  for (const plugin of plugins)
    for (const key of listKeys) t.strictSame((plugin as any)[key], [], `${plugin.name}.${key}`);
});
