import t from 'tap';
import { advertisedFrom, attributeWant, isAdvertised } from '../../../../src/domain/access/ref-attribution.ts';

const [first, second, third, other] = ['a1', 'b2', 'c3', 'd4'].map((d) => d.repeat(20)) as [
  string,
  string,
  string,
  string,
];

// A published repository: main at the newest approval, both approvals pinned.
const refs = new Map([
  ['refs/heads/main', second],
  [`refs/snapshots/${first}`, first],
  [`refs/snapshots/${second}`, second],
]);

t.test('advertisedFrom: the served tip and every pinned snapshot (spec, Facade rule 2)', async (t) => {
  const advertised = advertisedFrom(refs);
  t.equal(advertised.main, second);
  t.strictSame([...advertised.snapshots].sort(), [first, second]);
});

t.test('advertisedFrom: only refs/snapshots/* pins a snapshot; another ref pins nothing', async (t) => {
  const advertised = advertisedFrom(
    new Map([
      ['refs/heads/main', second],
      ['refs/heads/staging', third],
      ['refs/tags/v1', other],
      ['refs/staging/x', other],
    ]),
  );
  t.equal(advertised.main, second);
  t.strictSame([...advertised.snapshots], []);
  t.notOk(isAdvertised(advertised, third), 'a commit behind another branch is not advertised');
  t.notOk(isAdvertised(advertised, other), 'nor one behind a tag or a staging ref');
});

t.test('advertisedFrom: no refs/heads/main means nothing is served (main null)', async (t) => {
  t.equal(advertisedFrom(new Map([[`refs/snapshots/${first}`, first]])).main, null);
  t.strictSame(advertisedFrom(new Map()), { main: null, snapshots: new Set() });
});

t.test('isAdvertised: the tip and pinned snapshots are, anything else is not', async (t) => {
  const advertised = advertisedFrom(refs);
  t.ok(isAdvertised(advertised, second), 'the tip');
  t.ok(isAdvertised(advertised, first), 'a superseded approval, still pinned');
  t.notOk(isAdvertised(advertised, third), 'a commit never approved');
  t.notOk(isAdvertised(advertised, second.toUpperCase()), 'object ids are compared exactly');
  t.notOk(isAdvertised(advertised, second.slice(0, 12)), 'an abbreviation is not a want of an advertised tip');
  t.notOk(isAdvertised({ main: null, snapshots: new Set() }, first), 'nothing is advertised by an empty repository');
});

t.test('attributeWant: spec, Events (upload-pack): "a want equal to the tip records refs/heads/main"', async (t) => {
  t.equal(
    attributeWant(advertisedFrom(refs), second),
    'refs/heads/main',
    'the tip is also pinned, and still records main',
  );
});

t.test('attributeWant: spec, Events: "a want that is not the tip records refs/snapshots/<sha>"', async (t) => {
  t.equal(attributeWant(advertisedFrom(refs), first), `refs/snapshots/${first}`);
});

t.test('attributeWant: spec, Events: "null if none"', async (t) => {
  t.equal(attributeWant(advertisedFrom(refs), third), null);
  t.equal(attributeWant({ main: null, snapshots: new Set() }, first), null);
});
