import t from 'tap';
import { desiredRefs } from '../../../../src/domain/publication/desired-refs.ts';

const [first, second, third] = ['a', 'b', 'c'].map((d) => d.repeat(40)) as [string, string, string];
const entries = (refs: ReadonlyMap<string, string>) =>
  Object.fromEntries([...refs].sort(([a], [b]) => a.localeCompare(b)));

t.test(
  'spec, Facade rule 2: "refs/heads/main (the served tip), and refs/snapshots/<sha> for every approved snapshot (including superseded ones)"',
  async (t) => {
    const desired = desiredRefs([first, second], second);
    t.equal(desired.main, second);
    t.strictSame(entries(desired.refs), {
      'refs/heads/main': second,
      [`refs/snapshots/${first}`]: first,
      [`refs/snapshots/${second}`]: second,
    });
  },
);

t.test(
  'spec, Facade rule 2: "Nothing else is ever on the wire" (no HEAD entry, no staging or catalog refs)',
  async (t) => {
    const desired = desiredRefs([first, second, third], third);
    t.ok([...desired.refs.keys()].every((ref) => ref === 'refs/heads/main' || ref.startsWith('refs/snapshots/')));
    t.equal(desired.refs.size, 4);
    for (const [ref, sha] of desired.refs)
      if (ref.startsWith('refs/snapshots/')) t.equal(ref, `refs/snapshots/${sha}`, 'a pin names its own commit');
  },
);

t.test('nothing approved: nothing published', async (t) => {
  const desired = desiredRefs([], null);
  t.equal(desired.main, null);
  t.equal(desired.refs.size, 0);
});

t.test('decision 51: a revoked tip clears main rather than moving back to an older approval', async (t) => {
  // second was the tip and is no longer approved; first is still approved.
  const desired = desiredRefs([first], second);
  t.equal(desired.main, null);
  t.strictSame(entries(desired.refs), { [`refs/snapshots/${first}`]: first }, 'the older approval stays pinned only');
});

t.test('spec, Facade rule 5: revoking a superseded snapshot removes only its pinned ref', async (t) => {
  const before = desiredRefs([first, second], second);
  const after = desiredRefs([second], second);
  t.strictSame(
    [...before.refs.keys()].filter((ref) => !after.refs.has(ref)),
    [`refs/snapshots/${first}`],
  );
  t.equal(after.main, second, 'main is unchanged');
});

t.test('an approved snapshot that is not the tip is pinned but does not become main', async (t) => {
  const desired = desiredRefs([first, second], first);
  t.equal(desired.main, first, 'the served tip is what was approved last, not the newest commit');
  t.equal(desired.refs.get('refs/heads/main'), first);
  t.equal(desired.refs.get(`refs/snapshots/${second}`), second);
});

t.test('no served tip recorded: approvals stay pinned, main is absent', async (t) => {
  const desired = desiredRefs([first], null);
  t.equal(desired.main, null);
  t.notOk(desired.refs.has('refs/heads/main'));
  t.equal(desired.refs.size, 1);
});
