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
const base = { ...acme, snapshotId: 3, sha: sha('a') };
const held = captured({ snapshotId: 3, sha: sha('a') });
const softDeleted = (purgeAfter = after(window, earlier)): EventOf<'snapshot-soft-deleted'> => ({
  type: 'snapshot-soft-deleted',
  data: { ...base, reason: 'manual', deletedAt: earlier, deletedBy: 'root', purgeAfter },
});
const restored: EventOf<'snapshot-restored'> = {
  type: 'snapshot-restored',
  data: { ...base, restoredAt: earlier, restoredBy: 'root' },
};
const purged = (withdrawn = false): EventOf<'snapshot-purged'> => ({
  type: 'snapshot-purged',
  data: { ...base, withdrawn, purgedAt: earlier },
});
const removed: EventOf<'marketplace-removed'> = {
  type: 'marketplace-removed',
  data: {
    marketplaceId: 7,
    name: 'acme',
    reason: 'retired',
    removedAt: earlier,
    removedBy: 'root',
    withdrawnSnapshotIds: [3],
  },
};

const softDelete = (reason: DeletionReason = 'manual', when = at, principal = 'root') => ({
  type: 'soft-delete-snapshot' as const,
  data: { snapshotId: 3, reason, restoreWindowMs: window },
  meta: meta({ at: when, principal }),
});
const restore = (when = at) => ({
  type: 'restore-snapshot' as const,
  data: { snapshotId: 3 },
  meta: meta({ at: when, principal: 'root' }),
});
const purge = (when: string) => ({
  type: 'purge-snapshot' as const,
  data: { snapshotId: 3 },
  meta: meta({ at: when, principal: 'system', actorType: 'system' }),
});
const decide = spec(marketplaceDecider);

t.test('held, rejected and revoked snapshots are soft-deleted with purgeAfter = now + restore window', async (t) => {
  const histories = {
    held: [registered(), held],
    rejected: [registered(), held, rejected({ snapshotId: 3, sha: sha('a') })],
    revoked: [
      registered(),
      held,
      approved({ snapshotId: 3, sha: sha('a') }),
      revoked({ snapshotId: 3, sha: sha('a') }),
    ],
  };
  for (const [state, history] of Object.entries(histories)) {
    t.strictSame(
      decide.given(history).when(softDelete()),
      {
        outcome: 'accepted',
        events: [
          {
            type: 'snapshot-soft-deleted',
            data: {
              ...base,
              reason: 'manual',
              deletedAt: at,
              deletedBy: 'root',
              purgeAfter: '2026-03-15T10:00:00.000Z', // spec: "resolved at deletion time"
            },
          },
        ],
      },
      state,
    );
  }
});

t.test('an approved snapshot is never deleted (spec, Limits: "approved snapshots are never eligible")', async (t) => {
  const decision = decide.given([registered(), held, approved({ snapshotId: 3, sha: sha('a') })]).when(softDelete());
  t.match(decision, { outcome: 'refused', rejection: { code: 'snapshot-not-deletable', detail: /approved/ } });
  t.strictSame(decision.events, []);
});

t.test('a second delete is refused: already deleted (409), also after a purge', async (t) => {
  for (const history of [
    [registered(), held, softDeleted()],
    [registered(), held, softDeleted(), purged()],
    [registered(), held, softDeleted(), purged(true)],
  ]) {
    const decision = decide.given(history).when(softDelete());
    t.match(decision, { outcome: 'refused', rejection: { code: 'snapshot-deleted' } });
    t.strictSame(decision.events, []);
  }
});

t.test('an unknown snapshot is refused as not found', async (t) => {
  t.match(decide.given([registered()]).when(softDelete()), {
    outcome: 'refused',
    rejection: { code: 'snapshot-not-found' },
  });
  t.match(decide.given([]).when(restore()), { outcome: 'refused', rejection: { code: 'snapshot-not-found' } });
});

t.test('a removed marketplace: its withdrawn snapshot is deleted, restored and purged (its row stays)', async (t) => {
  const withdrawn = revoked({
    snapshotId: 3,
    sha: sha('a'),
    administrative: true,
    reason: 'marketplace removed: retired',
  });
  const gone = [registered(), held, approved({ snapshotId: 3, sha: sha('a') }), withdrawn, removed];
  t.match(decide.given(gone).when(softDelete()), { outcome: 'accepted', events: [{ type: 'snapshot-soft-deleted' }] });
  t.match(decide.given([...gone, softDeleted()]).when(restore(after(day, earlier))), {
    outcome: 'accepted',
    events: [{ type: 'snapshot-restored' }],
  });
  t.strictSame(decide.given([...gone, softDeleted()]).when(purge(after(window + 1, earlier))).events, [
    { type: 'snapshot-purged', data: { ...base, withdrawn: true, purgedAt: after(window + 1, earlier) } },
  ]);
  // Other commands still find the marketplace gone.
  t.match(decide.given(gone).when({ type: 'reject-snapshot', data: { snapshotId: 3 }, meta: meta() }), {
    outcome: 'refused',
    rejection: { code: 'marketplace-not-found' },
  });
});

t.test('policy deletions name their reason and principal as the use case sets them', async (t) => {
  const decision = decide.given([registered(), held]).when(softDelete('held-too-long', at, 'retention-policy'));
  t.match(decision.events, [{ data: { reason: 'held-too-long', deletedBy: 'retention-policy' } }]);
});

t.test('restore inside the window clears the marks; a later delete starts a new window', async (t) => {
  const inside = after(window - 1, earlier);
  t.strictSame(decide.given([registered(), held, softDeleted()]).when(restore(inside)), {
    outcome: 'accepted',
    events: [{ type: 'snapshot-restored', data: { ...base, restoredAt: inside, restoredBy: 'root' } }],
  });
  t.match(decide.given([registered(), held, softDeleted(), restored]).when(softDelete()), {
    outcome: 'accepted',
    events: [{ data: { purgeAfter: after(window) } }],
  });
});

t.test('restore refusals: not deleted, window elapsed, purged (each 409, nothing recorded)', async (t) => {
  const cases = [
    { history: [registered(), held], code: 'snapshot-not-deleted' },
    { history: [registered(), held, softDeleted(), restored], code: 'snapshot-not-deleted' },
    // SoftDeleted → Live "before purgeAfter"
    { history: [registered(), held, softDeleted(at)], code: 'restore-window-elapsed' },
    { history: [registered(), held, softDeleted(), purged()], code: 'restore-window-elapsed' },
    { history: [registered(), held, softDeleted(), purged(true)], code: 'restore-window-elapsed' },
  ];
  for (const { history, code } of cases) {
    const decision = decide.given(history).when(restore());
    t.match(decision, { outcome: 'refused', rejection: { code } }, code);
    t.strictSame(decision.events, []);
  }
});

t.test('purge: only a soft-deleted snapshot past its purgeAfter; a repeat records nothing', async (t) => {
  const deleted = [registered(), held, softDeleted()];
  const due = after(window, earlier);
  t.match(decide.given(deleted).when(purge(after(-1, due))), { outcome: 'refused', rejection: { code: 'conflict' } });
  t.match(decide.given([registered(), held]).when(purge(due)), {
    outcome: 'refused',
    rejection: { code: 'snapshot-not-deleted' },
  });
  t.strictSame(decide.given(deleted).when(purge(due)).events, [
    { type: 'snapshot-purged', data: { ...base, withdrawn: false, purgedAt: due } },
  ]);
  t.strictSame(decide.given([...deleted, purged()]).when(purge(due)), { outcome: 'accepted', events: [] });
});

t.test('a purged commit can be captured anew as a new snapshot', async (t) => {
  const decision = decide.given([registered(), held, softDeleted(), purged()]).when({
    type: 'record-ingest',
    data: {
      snapshotId: 9,
      sha: sha('a'),
      upstreamSha: sha('a'),
      violation: null,
      trigger: 'on-demand',
      committedAt: null,
      description: null,
    },
    meta: meta(),
  });
  t.match(decision.events, [{ type: 'snapshot-captured', data: { snapshotId: 9 } }, { type: 'ingest-succeeded' }]);
});

t.test('a soft-deleted snapshot takes no approve or reject until restored', async (t) => {
  const history = [registered(), held, softDeleted()];
  const reject = decide.given(history).when({ type: 'reject-snapshot', data: { snapshotId: 3 }, meta: meta() });
  t.match(reject, { outcome: 'refused', rejection: { code: 'snapshot-deleted', detail: /restore/ } });
  const approve = decide.given(history).when({
    type: 'approve-snapshot',
    data: {
      snapshotId: 3,
      inputs: {
        minimumReleaseAgeMs: 0,
        withdrawnShas: [],
        vetting: { outcome: 'CLEAR', uncovered: [], unanswered: [] },
        overrideReason: null,
        policyDenials: [],
      },
    },
    meta: meta(),
  });
  t.match(approve, { outcome: 'refused', rejection: { code: 'snapshot-deleted' } });
  t.strictSame([...reject.events, ...approve.events], []);
});
