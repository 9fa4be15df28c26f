import t from 'tap';
import type { RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { ledgerDrafts } from '../../../src/projections/ledger/ledger.mapping.ts';

const recorded = (type: string, data: unknown, metadata: Partial<RecordedEvent['metadata']> = {}): RecordedEvent => ({
  id: 'e',
  streamId: 's-1',
  revision: 0n,
  position: 42n,
  type,
  data,
  recordedAt: '2026-03-01T10:00:00.123Z',
  metadata: { principal: 'alice', actorType: 'human', correlationId: 'c', at: '2026-03-01T10:00:00.000Z', ...metadata },
});

t.test('an administrative act: source admin, the acting principal, no credential kind', async (t) => {
  const [entry, ...rest] = ledgerDrafts(
    recorded('marketplace-removed', {
      marketplaceId: 3,
      name: 'acme',
      reason: 'retired upstream',
      removedAt: 'x',
      removedBy: 'alice',
      withdrawnSnapshotIds: [1, 2],
    }),
  );
  t.strictSame(rest, []);
  t.match(entry, {
    position: 42n,
    ts: '2026-03-01T10:00:00.123Z',
    source: 'admin',
    principal: 'alice',
    actorType: 'human',
    marketplace: 'acme',
    marketplaceId: 3,
    event: 'marketplace-removed',
    ref: null,
    sha: null,
    // Detail "withdrew {n} approved snapshot(s); reason"
    detail: 'withdrew 2 approved snapshots; retired upstream',
    tokenId: null,
    credential_kind: null,
  });
  t.equal(
    ledgerDrafts(
      recorded('marketplace-removed', {
        marketplaceId: 3,
        name: 'acme',
        reason: 'r',
        removedAt: 'x',
        removedBy: 'a',
        withdrawnSnapshotIds: [9],
      }),
    )[0]?.detail,
    'withdrew 1 approved snapshot; r',
  );
});

t.test('a fetch: the client address as source, the token, one upload-pack entry per wanted object', async (t) => {
  const meta = { source: '10.0.0.7', credentialId: 12, actorType: 'machine' as const, principal: 'ci-bot' };
  const entries = ledgerDrafts(
    recorded(
      'upload-pack',
      {
        marketplaceId: 3,
        marketplace: 'acme',
        credentialKind: 'pat',
        wants: [
          { sha: 'a'.repeat(40), ref: 'refs/heads/main' },
          { sha: 'b'.repeat(40), ref: `refs/snapshots/${'b'.repeat(40)}` },
          { sha: 'c'.repeat(40), ref: null },
        ],
      },
      meta,
    ),
  );
  t.equal(entries.length, 3);
  t.strictSame(
    entries.map((e) => [e.ref, e.sha]),
    [
      ['refs/heads/main', 'a'.repeat(40)],
      [`refs/snapshots/${'b'.repeat(40)}`, 'b'.repeat(40)],
      [null, 'c'.repeat(40)],
    ],
  );
  t.ok(
    entries.every(
      (e) => e.source === '10.0.0.7' && e.tokenId === 12 && e.credential_kind === 'pat' && e.actorType === 'machine',
    ),
  );
  const [info] = ledgerDrafts(
    recorded(
      'info-refs',
      { marketplaceId: 3, marketplace: 'acme', ref: 'refs/heads/main', sha: 'a'.repeat(40), credentialKind: 'idp' },
      meta,
    ),
  );
  t.match(info, { event: 'info-refs', ref: 'refs/heads/main', credential_kind: 'idp', source: '10.0.0.7' });
});

t.test('events that are not acts on the ledger, and unknown types, add no entry', async (t) => {
  t.strictSame(ledgerDrafts(recorded('marketplace-name-reserved', { name: 'acme', marketplaceId: 3 })), []);
  t.strictSame(ledgerDrafts(recorded('something-from-the-future', { x: 1 })), []);
});
