// What the policy variables read from a pinned tree (file count, inventory, licenses) is the same whether
// the tree is read on the calling thread (a small one) or by a vetting worker reading git itself (a large
// one, so that the event loop never holds it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { readScanInput } from '../../../src/adapters/git/tree-reader.ts';
import { treeFactsOf } from '../../../src/adapters/vetting/tree-facts.ts';
import { readTreeFacts } from '../../../src/adapters/vetting/tree-facts-reading.ts';
import { treeFactsInWorker } from '../../../src/adapters/vetting/vetting-pool.ts';
import { gitIn, marketplaceFiles } from '../../support/upstream.ts';

const mit = `MIT License

Copyright (c) 2026 Upstream

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
`;

async function repoOf(files: Record<string, string>): Promise<{ repo: string; sha: string }> {
  const repo = mkdtempSync(join(tmpdir(), 'gateway-tree-facts-'));
  t.teardown(() => rmSync(repo, { recursive: true, force: true }));
  await gitIn(repo, 'init', '-q');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  await gitIn(repo, 'add', '.');
  await gitIn(repo, 'commit', '-qm', 'content');
  return { repo, sha: await gitIn(repo, 'rev-parse', 'HEAD') };
}

const settings = { maxFileBytes: 1024 * 1024, license: { allow: ['MIT'], ban: ['GPL-3.0-only'] } };

t.test('a large tree read by a worker gives the facts read on this thread', async (t) => {
  const plugins = Array.from({ length: 12 }, (_, k) => `tool-${k}`);
  const files: Record<string, string> = { ...marketplaceFiles('acme', plugins) };
  for (const [k, plugin] of plugins.entries()) {
    files[`plugins/${plugin}/LICENSE`] = mit;
    files[`plugins/${plugin}/.claude-plugin/plugin.json`] = JSON.stringify({
      name: plugin,
      version: '1.0.0',
      license: k % 3 === 0 ? 'GPL-3.0-only' : 'MIT',
    });
    // Enough text that the tree is read in the worker (over 1 MiB).
    files[`plugins/${plugin}/skills/${plugin}-skill/reference.md`] = `${'Read the guide. '.repeat(9000)}\n`;
  }
  const { repo, sha } = await repoOf(files);
  const here = await treeFactsOf(await readScanInput(repo, sha, settings));
  const there = await treeFactsInWorker(repo, sha, settings);
  t.strictSame(there, here, 'the same facts');
  t.strictSame(await readTreeFacts(repo, sha, settings), here, 'the facts the policy variables read');
  t.equal(here.plugins.length, 12);
  t.equal(here.fileCount, Object.keys(files).length);
  t.equal(here.licenses.filter((l) => l.evaluation === 'BANNED').length, 4, 'the banned manifest licenses');
  t.equal(here.licenses.filter((l) => l.source === 'file' && l.spdxId === 'MIT').length, 12, 'the LICENSE files');
});

t.test('a tree the worker cannot read fails with git saying why', async (t) => {
  const { repo } = await repoOf({ 'README.md': '# r\n' });
  await t.rejects(treeFactsInWorker(repo, 'e'.repeat(40), settings), /ls-tree/);
});
