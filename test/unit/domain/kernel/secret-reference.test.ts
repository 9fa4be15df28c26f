import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readSecretReference } from '../../../../src/adapters/system/secret-reference.ts';
import { describeSecretReference, parseSecretReference } from '../../../../src/domain/kernel/secret-reference.ts';
import { scratchDir } from '../../../support/scratch.ts';

t.test('a secret is a reference (env:NAME or file:/path), never a value', async (t) => {
  t.strictSame(parseSecretReference('env:SINK_SECRET'), { kind: 'env', name: 'SINK_SECRET' });
  t.strictSame(parseSecretReference('file:/run/secrets/sink'), { kind: 'file', path: '/run/secrets/sink' });
  for (const bad of ['whsec_abc', 'env:', 'env:1X', 'env:A-B', 'file:relative/path', 'file:', '']) {
    const parsed = parseSecretReference(bad);
    t.ok('error' in parsed, bad);
    if ('error' in parsed && bad.length > 5) t.notOk(parsed.error.includes(bad.slice(5)), `${bad}: not echoed`);
  }
  t.equal(describeSecretReference({ kind: 'env', name: 'X' }), 'env:X');
});

t.test(
  'reading: the variable or the file (trailing newline trimmed); a failure names the reference, not a value',
  async (t) => {
    t.equal(readSecretReference({ kind: 'env', name: 'S' }, { S: 'v1' }), 'v1');
    t.throws(() => readSecretReference({ kind: 'env', name: 'S' }, {}), /^env:S: the variable is not set$/);
    const dir = scratchDir(t, 'secret-ref-');
    writeFileSync(join(dir, 's'), 'from-file\n');
    t.equal(readSecretReference({ kind: 'file', path: join(dir, 's') }), 'from-file');
    writeFileSync(join(dir, 'empty'), '\n');
    t.throws(() => readSecretReference({ kind: 'file', path: join(dir, 'empty') }), /the file is empty/);
    t.throws(() => readSecretReference({ kind: 'file', path: join(dir, 'missing') }), /cannot be read \(ENOENT\)/);
  },
);
