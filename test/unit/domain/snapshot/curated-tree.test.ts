// Curation: which directories leave the served tree when a selection leaves plugins out.
import t from 'tap';
import { leftOutDirectories, treePathOf } from '../../../../src/domain/snapshot/curated-tree.ts';

const plugin = (name: string, source: string) => ({ name, source });

t.test('a relative source as a tree path', async (t) => {
  t.equal(treePathOf('./plugins/a/'), 'plugins/a');
  t.equal(treePathOf('./plugins/./a'), 'plugins/a');
  t.equal(treePathOf('./'), '', 'the repository root');
});

t.test('the directories of left-out local plugins leave the tree, sorted', async (t) => {
  const plugins = [plugin('a', './plugins/a'), plugin('b', './plugins/b/'), plugin('c', './tools/c')];
  t.strictSame(leftOutDirectories(plugins, new Set(['a'])), ['plugins/b', 'tools/c']);
  t.strictSame(leftOutDirectories(plugins, new Set(['a', 'b', 'c'])), [], 'nothing left out, nothing dropped');
});

t.test('a directory a selected plugin lives in, above or below, stays', async (t) => {
  const plugins = [
    plugin('root', './'),
    plugin('outer', './plugins/outer'),
    plugin('inner', './plugins/outer/inner'),
    plugin('shared-1', './shared'),
    plugin('shared-2', './shared'),
    plugin('manifest-dir', './.claude-plugin'),
  ];
  t.strictSame(leftOutDirectories(plugins, new Set(['inner', 'shared-1'])), [], 'root, parent, same directory');
  t.strictSame(leftOutDirectories(plugins, new Set(['outer'])), ['shared'], 'a child of a kept directory stays');
  t.strictSame(
    leftOutDirectories(plugins, new Set([])),
    ['plugins/outer', 'plugins/outer/inner', 'shared'],
    'the root and .claude-plugin/ never leave (the manifest is rewritten)',
  );
});
