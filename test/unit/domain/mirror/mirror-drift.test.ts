// The mirror compares only refs/heads/main and refs/snapshots/*; the drift report (docs/mirror.md).
import t from 'tap';
import { driftReport, mirrorPlan, refspecsOf } from '../../../../src/domain/mirror/mirror-drift.ts';
import { mirrorUrlOf, mirrorUrlProblem } from '../../../../src/domain/mirror/mirror-url.ts';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const c = 'c'.repeat(40);
const refs = (entries: Record<string, string>) => new Map(Object.entries(entries));

t.test(
  'the plan sets what the mirror lacks or holds elsewhere and deletes only mirrored refs no longer served',
  async (t) => {
    const served = refs({ 'refs/heads/main': b, [`refs/snapshots/${b}`]: b, [`refs/snapshots/${c}`]: c });
    const mirror = refs({
      'refs/heads/main': a,
      [`refs/snapshots/${a}`]: a,
      [`refs/snapshots/${c}`]: c,
      'refs/heads/other': a,
      'refs/tags/v1': a,
    });
    const plan = mirrorPlan(served, mirror);
    t.strictSame(plan.set, [
      ['refs/heads/main', b],
      [`refs/snapshots/${b}`, b],
    ]);
    t.strictSame(plan.remove, [`refs/snapshots/${a}`], 'refs outside main and refs/snapshots/* are never touched');
    t.strictSame(refspecsOf(plan), [`+${b}:refs/heads/main`, `+${b}:refs/snapshots/${b}`, `:refs/snapshots/${a}`]);
  },
);

t.test('the report: in sync, drift, unreachable, refused', async (t) => {
  const url = 'https://forge.example/mirror/acme.git';
  const served = { refs: refs({ 'refs/heads/main': a, [`refs/snapshots/${a}`]: a }) };
  const base = { name: 'acme', url, served, last: null };
  t.match(driftReport({ ...base, mirror: { refs: refs({ 'refs/heads/main': a, [`refs/snapshots/${a}`]: a }) } }), {
    enabled: true,
    reachable: true,
    inSync: true,
    pendingUpdates: 0,
    lastAttemptOutcome: 'none',
    error: null,
  });
  t.match(driftReport({ ...base, mirror: { refs: refs({ [`refs/snapshots/${b}`]: b }) } }), {
    inSync: false,
    missingOnMirror: ['refs/heads/main', `refs/snapshots/${a}`],
    staleOnMirror: [`refs/snapshots/${b}`],
    pendingUpdates: 3,
    mirrorTip: null,
    servedTip: a,
  });
  const down = driftReport({ ...base, mirror: { unreachable: 'connection refused' } });
  t.match(down, { reachable: false, inSync: false, error: 'mirror unreachable: connection refused' });
  t.ok(down.pendingUpdates > 0, 'spec: the mirror down → pendingUpdates > 0');
  const refused = driftReport({
    ...base,
    served: { refused: 'the published repository of acme is missing' },
    mirror: { refs: new Map() },
    last: { at: '2026-01-01T00:00:00.000Z', outcome: 'failed', error: 'refused: x' },
  });
  t.match(refused, { inSync: false, error: /^refused: the published/, lastAttemptOutcome: 'failed' });
  t.ok(refused.pendingUpdates > 0);
});

t.test('the URL template: {name} required, http(s) only, never userinfo', async (t) => {
  t.equal(mirrorUrlOf('https://forge.example/m/{name}.git', 'acme'), 'https://forge.example/m/acme.git');
  t.equal(mirrorUrlProblem('https://forge.example/m/{name}.git'), null);
  t.match(mirrorUrlProblem('https://forge.example/m/x.git'), /\{name\}/);
  t.match(mirrorUrlProblem('https://bot:secret@forge.example/{name}.git'), /credentials/);
  t.notMatch(mirrorUrlProblem('https://bot:secret@forge.example/{name}.git') ?? '', /secret/);
  t.match(mirrorUrlProblem('ssh://forge.example/{name}.git'), /http/);
  t.match(mirrorUrlProblem('file:///srv/{name}.git'), /http/);
});
