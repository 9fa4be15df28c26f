// The tree reader takes blobs from one `git cat-file --batch` as they stream in: whatever the chunk
// boundaries (a header or a blob cut anywhere, a blob of several megabytes), it gives each blob's exact
// bytes once, leaves a missing object out, and reads a pinned tree as the vetting connectors see it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { git, gitText } from '../../../src/adapters/git/git-process.ts';
import { catFileParser, readScanInput, streamBlobs } from '../../../src/adapters/git/tree-reader.ts';

const repo = mkdtempSync(join(tmpdir(), 'gateway-tree-reader-'));
t.teardown(() => rmSync(repo, { recursive: true, force: true }));

const hashed = async (content: Buffer): Promise<string> =>
  gitText(['-C', repo, 'hash-object', '-w', '--stdin'], { input: content });

t.before(async () => {
  await git(['init', '-q', repo]);
});

t.test('every blob arrives whole and once, whatever the chunks', async (t) => {
  const contents = [
    Buffer.alloc(0),
    Buffer.from('one line\n'),
    Buffer.from('no trailing newline'),
    Buffer.from('deadbeef missing\n0123 blob 12\n'), // text shaped like cat-file's own headers
    Buffer.from([0, 1, 2, 0x0a, 255, 0x0a, 0]),
    Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, k) => 32 + (k % 90))), // spans many chunks
    ...Array.from({ length: 400 }, (_, k) => Buffer.from(`small file ${k}\n`.repeat(k % 7))),
  ];
  const oids = await Promise.all(contents.map(hashed));
  const absent = 'f'.repeat(40);
  const seen = new Map<string, Buffer>();
  let calls = 0;
  await streamBlobs(repo, [...oids, absent, oids[1]!, oids[5]!], (oid, content) => {
    calls += 1;
    seen.set(oid, Buffer.from(content));
  });
  t.equal(calls, new Set(oids).size, 'each distinct blob once; the missing one left out');
  t.notOk(seen.has(absent));
  for (const [k, oid] of oids.entries()) t.ok(seen.get(oid)?.equals(contents[k]!), `blob ${k} exact`);

  // cat-file's output cut every n bytes: headers and blobs split anywhere, even one byte at a time.
  const small = oids.filter((_, k) => k !== 5);
  const output = await git(['-C', repo, 'cat-file', '--batch'], { input: `${[...small, absent].join('\n')}\n` });
  for (const every of [1, 2, 3, 7, 41, 64, 4096]) {
    const got = new Map<string, Buffer>();
    const take = catFileParser((oid, content) => got.set(oid, Buffer.from(content)));
    for (let at = 0; at < output.length; at += every) take(output.subarray(at, at + every));
    t.ok(
      small.every((oid) => got.get(oid)?.equals(contents[oids.indexOf(oid)]!)) && got.size === new Set(small).size,
      `cut every ${every} bytes: every blob exact`,
    );
  }
});

t.test('a pinned tree is read with its texts, binaries and modes, and progress reaches the total', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'gateway-tree-work-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  await git(['init', '-q', work]);
  writeFileSync(join(work, 'a.md'), '# A\n');
  writeFileSync(join(work, 'same.md'), '# A\n'); // the same blob at two paths
  writeFileSync(join(work, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  writeFileSync(join(work, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  writeFileSync(join(work, 'big.txt'), 'x'.repeat(2000));
  await git(['-C', work, 'add', '.']);
  await git(['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'c']);
  const sha = await gitText(['-C', work, 'rev-parse', 'HEAD']);
  const progress: Array<[number, number]> = [];
  const input = await readScanInput(work, sha, { maxFileBytes: 1000, license: { allow: [], ban: [] } }, (read, total) =>
    progress.push([read, total]),
  );
  const byPath = Object.fromEntries(input.files.map((f) => [f.path, f]));
  t.equal(byPath['a.md']?.text, '# A\n');
  t.equal(byPath['same.md']?.text, '# A\n');
  t.match(byPath['run.sh'], { text: '#!/bin/sh\necho hi\n', executable: true });
  t.match(byPath['logo.png'], { text: null, binary: true });
  t.match(byPath['big.txt'], { text: null, oversized: true, size: 2000 });
  t.strictSame(progress.at(-1), [5, 5], 'the last report counts every file');
});
