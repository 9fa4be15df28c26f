// Time travel, the projection on its own with events recorded at instants the test
// chooses: the cases a live script reaches only slowly (docs/audit-time-travel.md).
import t from 'tap';
import type { RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { timeTravelProjection } from '../../../src/projections/time-travel/time-travel.projection.ts';
import {
  capturedSnapshot,
  catalogServedAt,
  holdersAt,
  servedAt,
} from '../../../src/projections/time-travel/time-travel.queries.ts';
import { metadata, testCore } from '../../support/core.ts';

const sha = (c: string) => c.repeat(40);
let position = 0n;
const recorded = (type: string, data: object, at: string, principal = 'root'): RecordedEvent => {
  position += 1n;
  return {
    id: `e${position}`,
    streamId: 's',
    revision: position,
    position,
    type,
    data,
    metadata: { ...metadata({ principal }), actorType: 'human' },
    recordedAt: at,
  } as RecordedEvent;
};
const registered = (id: number, name: string, at: string) =>
  recorded('marketplace-registered', { marketplaceId: id, name, origin: 'upstream' }, at);
const captured = (snapshotId: number, marketplaceId: number, marketplace: string, c: string, at: string) =>
  recorded('snapshot-captured', { snapshotId, marketplaceId, marketplace, sha: sha(c) }, at);
const approved = (snapshotId: number, marketplaceId: number, marketplace: string, c: string, at: string) =>
  recorded('snapshot-approved', { snapshotId, marketplaceId, marketplace, sha: sha(c) }, at);
const revoked = (snapshotId: number, marketplaceId: number, marketplace: string, c: string, at: string) =>
  recorded('snapshot-revoked', { snapshotId, marketplaceId, marketplace, sha: sha(c) }, at);
const fetched = (principal: string, marketplaceId: number | null, marketplace: string, at: string, ...cs: string[]) =>
  recorded(
    'upload-pack',
    {
      marketplaceId,
      marketplace,
      credentialKind: principal === 'ivy' ? 'idp' : 'pat',
      wants: cs.map((c) => ({ sha: sha(c), ref: null })),
    },
    at,
    principal,
  );

t.test('served and holders over events at chosen instants', async (t) => {
  const { pool } = await testCore(t, { projections: [timeTravelProjection] });
  const apply = (...events: RecordedEvent[]) => pool.transaction((tx) => timeTravelProjection.apply(tx, events));
  await apply(
    registered(1, 'acme', '2026-01-01T00:00:00.000Z'),
    captured(1, 1, 'acme', 'a', '2026-01-01T01:00:00.000Z'),
    approved(1, 1, 'acme', 'a', '2026-01-02T00:00:00.000Z'),
    captured(2, 1, 'acme', 'b', '2026-01-03T00:00:00.000Z'),
    approved(2, 1, 'acme', 'b', '2026-01-04T00:00:00.000Z'),
  );
  // Revoking an already superseded one removes only its pinned ref.
  await apply(revoked(1, 1, 'acme', 'a', '2026-01-05T00:00:00.000Z'));
  const tip = async (at: string) => (await servedAt(pool, at)).map((m) => [m.marketplace, m.sha?.[0] ?? null]);
  t.strictSame(await tip('2025-12-31T23:59:59.999Z'), [], 'before the registration: not listed');
  t.strictSame(await tip('2026-01-01T00:00:00.000Z'), [['acme', null]], 'registered at that very instant');
  t.strictSame(await tip('2026-01-02T00:00:00.000Z'), [['acme', 'a']], 'approval counts at its instant');
  t.strictSame(await tip('2026-01-05T12:00:00.000Z'), [['acme', 'b']], 'the superseded revocation changes nothing');
  await apply(
    recorded('marketplace-removed', { marketplaceId: 1, name: 'acme' }, '2026-01-06T00:00:00.000Z'),
    registered(2, 'acme', '2026-01-07T00:00:00.000Z'),
    captured(3, 2, 'acme', 'b', '2026-01-07T01:00:00.000Z'),
    approved(3, 2, 'acme', 'b', '2026-01-07T02:00:00.000Z'),
  );
  t.strictSame(await tip('2026-01-06T12:00:00.000Z'), [], 'removed: not listed');
  const again = await servedAt(pool, '2026-01-08T00:00:00.000Z');
  t.strictSame(
    again.map((m) => [m.marketplaceId, m.sha?.[0], m.snapshotId, m.since]),
    [[2, 'b', 3, '2026-01-07T02:00:00.000Z']],
    'the name registered again is a new marketplace',
  );

  await apply(
    fetched('alice', 1, 'acme', '2026-01-02T10:00:00.000Z', 'a', 'a'),
    fetched('ivy', 1, 'acme', '2026-01-04T10:00:00.000Z', 'b', 'a'),
    fetched('alice', 1, 'acme', '2026-01-04T11:00:00.000Z', 'a'),
    recorded(
      'info-refs',
      { marketplaceId: 1, marketplace: 'acme', ref: 'refs/heads/main', sha: sha('b') },
      '2026-01-04T12:00:00.000Z',
      'bob',
    ),
    // the same commit under the new marketplace of the same name: holders of snapshot 3, not of 2
    fetched('carol', 2, 'acme', '2026-01-07T10:00:00.000Z', 'b'),
    recorded(
      'catalog-rebuilt',
      { catalog: 'catalog', sha: sha('k'), constituents: [{ marketplace: 'acme', sha: sha('b') }] },
      '2026-01-07T11:00:00.000Z',
    ),
    fetched('dave', null, 'catalog', '2026-01-07T12:00:00.000Z', 'k'),
  );
  const holders = async (id: number, at: string) => {
    const snapshot = (await capturedSnapshot(pool, id))!;
    return (await holdersAt(pool, snapshot, at)).map((h) => [
      h.principal,
      h.fetches,
      h.firstFetch,
      h.lastFetch,
      h.credentialKinds,
      h.via,
    ]);
  };
  t.strictSame(await holders(1, '2026-01-02T09:59:59.999Z'), [], 'before any fetch');
  t.strictSame(
    await holders(1, '2026-01-31T00:00:00.000Z'),
    [
      ['alice', 2, '2026-01-02T10:00:00.000Z', '2026-01-04T11:00:00.000Z', ['pat'], ['marketplace']],
      ['ivy', 1, '2026-01-04T10:00:00.000Z', '2026-01-04T10:00:00.000Z', ['idp'], ['marketplace']],
    ],
    'a commit wanted twice in one send is one fetch; bob only asked for refs',
  );
  t.strictSame(await holders(2, '2026-01-31T00:00:00.000Z'), [
    ['ivy', 1, '2026-01-04T10:00:00.000Z', '2026-01-04T10:00:00.000Z', ['idp'], ['marketplace']],
  ]);
  t.strictSame(
    await holders(3, '2026-01-31T00:00:00.000Z'),
    [
      ['carol', 1, '2026-01-07T10:00:00.000Z', '2026-01-07T10:00:00.000Z', ['pat'], ['marketplace']],
      ['dave', 1, '2026-01-07T12:00:00.000Z', '2026-01-07T12:00:00.000Z', ['pat'], ['catalog']],
    ],
    'through the catalog revision built from it',
  );
  t.strictSame(await catalogServedAt(pool, '2026-01-07T10:59:59.999Z'), null, 'no catalog yet');
  t.strictSame(await catalogServedAt(pool, '2026-01-07T11:00:00.000Z'), {
    name: 'catalog',
    sha: sha('k'),
    since: '2026-01-07T11:00:00.000Z',
  });
  // The tip is revoked: nothing is served; the history outlives a purge of the snapshot row.
  await apply(revoked(3, 2, 'acme', 'b', '2026-01-09T00:00:00.000Z'));
  t.strictSame(await tip('2026-01-09T00:00:00.000Z'), [['acme', null]], 'revoking the tip serves nothing');
  t.strictSame(await tip('2026-01-08T23:59:59.999Z'), [['acme', 'b']], 'a moment before, it did');
});
