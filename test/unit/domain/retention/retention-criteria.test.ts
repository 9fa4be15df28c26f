// Issue 17, item 2: the retention criteria and the min-idle veto, pure (spec, Limits, retention rules).
import t from 'tap';
import {
  selectForRetention,
  type RetentionRules,
  type RetentionSubject,
} from '../../../../src/domain/retention/retention-criteria.ts';

const day = 86_400_000;
const now = '2026-06-01T00:00:00.000Z';
const daysAgo = (n: number) => new Date(Date.parse(now) - n * day).toISOString();

const rules: RetentionRules = {
  heldMaxAgeMs: 90 * day,
  supersededEnabled: true,
  supersededMinAgeMs: 30 * day,
  minIdleMs: 30 * day,
};

let nextId = 1;
const snap = (over: Partial<RetentionSubject> & Pick<RetentionSubject, 'state' | 'capturedAt'>): RetentionSubject => {
  const id = nextId++;
  return {
    snapshotId: id,
    marketplaceId: 1,
    marketplace: 'acme',
    sha: id.toString(16).padStart(40, '0'),
    withdrawn: false,
    deleted: false,
    ...over,
  };
};
const never = () => undefined;
const ids = (xs: ReadonlyArray<{ snapshotId: number; criterion: string }>) =>
  xs.map((x) => [x.snapshotId, x.criterion]);

t.test('held-too-long: held snapshots older than held-max-age, measured from capture', async (t) => {
  const old = snap({ state: 'held', capturedAt: daysAgo(91) });
  const young = snap({ state: 'held', capturedAt: daysAgo(89) });
  const rejected = snap({ state: 'rejected', capturedAt: daysAgo(200) });
  const { candidates } = selectForRetention([old, young, rejected], never, rules, now);
  t.strictSame(
    ids(candidates),
    [[old.snapshotId, 'held-too-long']],
    'a rejected one is no held one, and has no later approved',
  );
  t.equal(candidates[0]!.lastFetch, null);
});

t.test('held-max-age zero or negative disables the criterion (spec, Limits)', async (t) => {
  const old = snap({ state: 'held', capturedAt: daysAgo(1000) });
  for (const heldMaxAgeMs of [0, -day]) {
    t.strictSame(selectForRetention([old], never, { ...rules, heldMaxAgeMs }, now).candidates, [], `${heldMaxAgeMs}`);
  }
});

t.test('superseded: held, rejected or revoked older than superseded-min-age, with a later approved one', async (t) => {
  const held = snap({ state: 'held', capturedAt: daysAgo(40) });
  const rejected = snap({ state: 'rejected', capturedAt: daysAgo(39) });
  const revoked = snap({ state: 'revoked', capturedAt: daysAgo(38) });
  const tooYoung = snap({ state: 'held', capturedAt: daysAgo(20) });
  const approved = snap({ state: 'approved', capturedAt: daysAgo(10) });
  const after = snap({ state: 'rejected', capturedAt: daysAgo(5) });
  const { candidates } = selectForRetention([held, rejected, revoked, tooYoung, approved, after], never, rules, now);
  t.strictSame(ids(candidates), [
    [held.snapshotId, 'superseded'],
    [rejected.snapshotId, 'superseded'],
    [revoked.snapshotId, 'superseded'],
  ]);
});

t.test('superseded needs a LATER approved snapshot of the SAME marketplace', async (t) => {
  const approvedEarlier = snap({ state: 'approved', capturedAt: daysAgo(100) });
  const held = snap({ state: 'held', capturedAt: daysAgo(60) });
  const otherMarketplace = snap({ state: 'approved', capturedAt: daysAgo(1), marketplaceId: 2, marketplace: 'other' });
  t.strictSame(selectForRetention([approvedEarlier, held, otherMarketplace], never, rules, now).candidates, []);
});

t.test('retention.superseded false disables the criterion', async (t) => {
  const held = snap({ state: 'held', capturedAt: daysAgo(40) });
  const approved = snap({ state: 'approved', capturedAt: daysAgo(10) });
  const off = { ...rules, supersededEnabled: false };
  t.strictSame(selectForRetention([held, approved], never, off, now).candidates, []);
});

t.test('held older than both: held-too-long is the selecting criterion (tried first)', async (t) => {
  const held = snap({ state: 'held', capturedAt: daysAgo(100) });
  const approved = snap({ state: 'approved', capturedAt: daysAgo(10) });
  t.strictSame(ids(selectForRetention([held, approved], never, rules, now).candidates), [
    [held.snapshotId, 'held-too-long'],
  ]);
});

t.test('approved snapshots are never eligible; a soft-deleted one is no candidate', async (t) => {
  const oldApproved = snap({ state: 'approved', capturedAt: daysAgo(500) });
  const deleted = snap({ state: 'held', capturedAt: daysAgo(500), deleted: true });
  const latest = snap({ state: 'approved', capturedAt: daysAgo(1) });
  t.strictSame(selectForRetention([oldApproved, deleted, latest], never, rules, now), { candidates: [], vetoed: [] });
});

t.test(
  'withdrawn (revoked on marketplace removal): superseded only; a removed marketplace has no approved one',
  async (t) => {
    const withdrawn = snap({ state: 'revoked', capturedAt: daysAgo(500), withdrawn: true, marketplaceId: 9 });
    t.strictSame(
      selectForRetention([withdrawn], never, rules, now).candidates,
      [],
      'not held: held-too-long never applies',
    );
    const laterApproved = snap({ state: 'approved', capturedAt: daysAgo(1), marketplaceId: 9 });
    t.strictSame(ids(selectForRetention([withdrawn, laterApproved], never, rules, now).candidates), [
      [withdrawn.snapshotId, 'superseded'],
    ]);
  },
);

t.test('the min-idle veto: fetched from its own marketplace within the window keeps it', async (t) => {
  const fetched = snap({ state: 'held', capturedAt: daysAgo(100) });
  const longAgo = snap({ state: 'held', capturedAt: daysAgo(100) });
  const elsewhere = snap({ state: 'held', capturedAt: daysAgo(100) });
  const fetches = new Map([
    [`acme ${fetched.sha}`, daysAgo(29)],
    [`acme ${longAgo.sha}`, daysAgo(31)],
    [`other ${elsewhere.sha}`, daysAgo(1)], // the same SHA through another marketplace does not veto
  ]);
  const lastFetch = (marketplace: string, sha: string) => fetches.get(`${marketplace} ${sha}`);
  const { candidates, vetoed } = selectForRetention([fetched, longAgo, elsewhere], lastFetch, rules, now);
  t.strictSame(ids(candidates), [
    [longAgo.snapshotId, 'held-too-long'],
    [elsewhere.snapshotId, 'held-too-long'],
  ]);
  t.equal(candidates[0]!.lastFetch, daysAgo(31), 'the last fetch outside the window is shown');
  t.strictSame(ids(vetoed), [[fetched.snapshotId, 'held-too-long']]);
  t.equal(vetoed[0]!.lastFetch, daysAgo(29));
});
