// The retention policy's batch: several snapshots of one marketplace soft-deleted in one decision (one append).
// Approved snapshots are never eligible, by policy or by hand; purgeAfter is resolved at deletion time
// (docs/retention.md). A snapshot no longer eligible when the batch is decided is skipped, never a refusal of
// the batch (decision 212), and each deletion stays its own `snapshot-soft-deleted` (ledger, webhooks).
import t from 'tap';
import { marketplaceDecider } from '../../../../src/domain/marketplace/marketplace.decider.ts';
import type { EventOf } from '../../../../src/domain/events.ts';
import type { DeletionReason } from '../../../../src/domain/snapshot/snapshot.events.ts';
import {
  acme,
  after,
  approved,
  at,
  captured,
  earlier,
  meta,
  registered,
  rejected,
  revoked,
  sha,
} from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const day = 86_400_000;
const window = 14 * day;
const decide = spec(marketplaceDecider);
const policy = meta({ at, principal: 'retention-policy', actorType: 'system' });

type Item = { snapshotId: number; reason: DeletionReason };
const batch = (snapshots: Item[]) => ({
  type: 'soft-delete-snapshots' as const,
  data: { snapshots, restoreWindowMs: window },
  meta: policy,
});
const item = (snapshotId: number, reason: DeletionReason = 'held-too-long'): Item => ({ snapshotId, reason });
const snap = (snapshotId: number) => ({ snapshotId, sha: sha(String.fromCharCode(96 + snapshotId)) });
const softDeleted = (
  snapshotId: number,
  reason: DeletionReason = 'held-too-long',
): EventOf<'snapshot-soft-deleted'> => ({
  type: 'snapshot-soft-deleted',
  data: {
    ...acme,
    ...snap(snapshotId),
    reason,
    deletedAt: at,
    deletedBy: 'retention-policy',
    purgeAfter: after(window),
  },
});
const purged = (snapshotId: number): EventOf<'snapshot-purged'> => ({
  type: 'snapshot-purged',
  data: { ...acme, ...snap(snapshotId), withdrawn: false, purgedAt: earlier },
});

/** acme: 1 held, 2 rejected, 3 revoked, 4 approved, 5 deleted by hand, 6 purged. */
const estate = [
  registered(),
  ...[1, 2, 3, 4, 5, 6].map((id) => captured(snap(id))),
  rejected(snap(2)),
  approved(snap(3)),
  revoked(snap(3)),
  approved(snap(4)),
  { ...softDeleted(5, 'manual'), data: { ...softDeleted(5, 'manual').data, deletedAt: earlier, deletedBy: 'root' } },
  softDeleted(6),
  purged(6),
];

t.test('one event per eligible snapshot, in the order asked, each with its reason and purgeAfter', async (t) => {
  t.strictSame(decide.given(estate).when(batch([item(3, 'superseded'), item(1), item(2, 'superseded')])), {
    outcome: 'accepted',
    events: [softDeleted(3, 'superseded'), softDeleted(1), softDeleted(2, 'superseded')],
  });
});

t.test('the ineligible are skipped, not a refusal: approved, deleted, purged, unknown, repeated', async (t) => {
  const decision = decide.given(estate).when(batch([item(4), item(1), item(5), item(6), item(99), item(1), item(2)]));
  t.strictSame(decision, { outcome: 'accepted', events: [softDeleted(1), softDeleted(2)] }, 'only 1 and 2, 1 once');
});

t.test('an empty batch, or one with nothing eligible left, records nothing', async (t) => {
  t.strictSame(decide.given(estate).when(batch([])), { outcome: 'accepted', events: [] });
  t.strictSame(decide.given(estate).when(batch([item(4), item(5), item(6)])), { outcome: 'accepted', events: [] });
  // Applied once, the same batch again finds every snapshot deleted.
  const once = decide.given(estate).when(batch([item(1), item(2)])).events;
  t.strictSame(decide.given([...estate, ...once]).when(batch([item(1), item(2)])), { outcome: 'accepted', events: [] });
});

t.test("a removed marketplace's snapshots are deleted by batch too; no marketplace at all is refused", async (t) => {
  const removed: EventOf<'marketplace-removed'> = {
    type: 'marketplace-removed',
    data: {
      marketplaceId: 7,
      name: 'acme',
      reason: 'retired',
      removedAt: earlier,
      removedBy: 'root',
      withdrawnSnapshotIds: [],
    },
  };
  t.strictSame(decide.given([...estate, removed]).when(batch([item(1)])).events, [softDeleted(1)]);
  t.match(decide.given([]).when(batch([item(1)])), { outcome: 'refused', rejection: { code: 'snapshot-not-found' } });
});

t.test('the by-hand DELETE stays a single command that refuses (409) what the batch skips', async (t) => {
  const single = {
    type: 'soft-delete-snapshot' as const,
    data: { snapshotId: 4, reason: 'manual' as const, restoreWindowMs: window },
    meta: meta(),
  };
  t.match(decide.given(estate).when(single), { outcome: 'refused', rejection: { code: 'snapshot-not-deletable' } });
});
