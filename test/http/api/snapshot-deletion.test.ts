import t, { type Test } from 'tap';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import {
  recordPurge,
  restoreSnapshot,
  softDeleteSnapshot,
} from '../../../src/application/snapshots/deletion.use-case.ts';
import { Rejected } from '../../../src/application/kernel/rejected.ts';
import type { CommandMeta } from '../../../src/domain/kernel/decider.ts';
import {
  assertNothingChanged,
  day,
  expectJson,
  expectProblem,
  inMs,
  ledger,
  machine,
  session,
  type Client,
} from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Live → SoftDeleted (deleted_at,
// deleted_reason, purgeAfter = now + restore window), "SoftDeleted → Live: POST restore, before purgeAfter";
// Endpoints: "DELETE /api/v1/snapshots/{id}: soft-delete by hand, reason manual; 409 if approved or already
// deleted, 404 unknown", "POST /api/v1/snapshots/{id}/restore: clear deletion marks; 409 if not deleted, 404
// unknown"; Roles: "retention passes, delete, restore: admin"; Scopes: "No scope and no role reaches: ...
// snapshot delete and restore".

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const window = 14 * day; // gateway.retention.restore-window default

type Snapshot = {
  id: number;
  marketplaceId: number;
  sha: string;
  state: string;
  deleted_at?: string;
  deleted_reason?: string;
  purgeAfter?: string;
};
type Listing = { name: string; snapshots: Snapshot[] }[];

const systemMeta = (at: string): CommandMeta => ({
  principal: 'system',
  actorType: 'system',
  at,
  correlationId: 'compaction-test',
});

/** The rejection code a use case refused with. */
async function refusal(pending: Promise<unknown>): Promise<string> {
  try {
    await pending;
  } catch (error) {
    if (error instanceof Rejected) return error.rejection.code;
    throw error;
  }
  throw new Error('not refused');
}

async function listed(t: Test, root: Client, name: string, id: number): Promise<Snapshot | undefined> {
  const all = await expectJson<Listing>(t, await root.get('/api/v1/marketplaces'), 200);
  return all.find((m) => m.name === name)?.snapshots.find((s) => s.id === id);
}

async function ingested(t: Test, root: Client, name: string): Promise<Snapshot> {
  const upstream = await serveUpstream(t, marketplaceFiles(name, ['alpha']), name);
  await expectJson(t, await root.post('/api/v1/marketplaces', { name, url: upstream.url }), 201);
  return expectJson<Snapshot>(t, await root.post(`/api/v1/marketplaces/${name}/ingest`), 201);
}

t.test('soft delete by hand and restore, with every refusal leaving nothing changed', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const held = await ingested(t, root, 'acme');
  t.equal(held.state, 'held');

  t.test('403 for anyone but an admin, an approver of the marketplace included', async (t) => {
    await expectJson(
      t,
      await root.post('/api/v1/roles', { principal: 'bob', role: 'approver', marketplace: 'acme' }),
      201,
    );
    for (const who of ['alice', 'bob']) {
      const other = session(gw, who);
      await assertNothingChanged(
        t,
        gw,
        async () => {
          await expectProblem(
            t,
            await other.delete(`/api/v1/snapshots/${held.id}`),
            403,
            'forbidden',
            `${who} deletes`,
          );
          await expectProblem(
            t,
            await other.post(`/api/v1/snapshots/${held.id}/restore`),
            403,
            'forbidden',
            `${who} restores`,
          );
        },
        `${who}'s attempts`,
      );
    }
  });

  t.test('no machine scope reaches delete or restore, even for an admin principal', async (t) => {
    const token = await expectJson<{ token: string }>(
      t,
      await root.post('/api/v1/tokens/machine', {
        principal: 'root',
        name: 'every-scope bot',
        apiScopes: ['marketplaces:read', 'snapshots:read', 'retention:read', 'vetting:run'],
        expiresAt: inMs(10 * day),
      }),
      201,
    );
    const bot = machine(gw, token.token);
    // Its first use is recorded (token-used, at most once a minute): done before the refusals are watched.
    await expectJson(t, await bot.get('/api/v1/marketplaces'), 200);
    await assertNothingChanged(t, gw, async () => {
      await expectProblem(t, await bot.delete(`/api/v1/snapshots/${held.id}`), 403, 'forbidden', 'machine delete');
      await expectProblem(t, await bot.post(`/api/v1/snapshots/${held.id}/restore`), 403, 'forbidden', 'restore');
    });
  });

  t.test('404 for an unknown snapshot; 409 restoring one not deleted', async (t) => {
    await assertNothingChanged(t, gw, async () => {
      await expectProblem(t, await root.delete('/api/v1/snapshots/987654'), 404, 'snapshot-not-found');
      await expectProblem(t, await root.post('/api/v1/snapshots/987654/restore'), 404, 'snapshot-not-found');
      const problem = await expectProblem(
        t,
        await root.post(`/api/v1/snapshots/${held.id}/restore`),
        409,
        'snapshot-not-deleted',
      );
      t.match(problem.detail, /not deleted/);
    });
  });

  t.test(
    'DELETE marks the snapshot: deleted_at, deleted_reason manual, purgeAfter = deleted_at + window',
    async (t) => {
      const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${held.id}`), 200);
      t.match(deleted, {
        id: held.id,
        state: 'held',
        deleted_reason: 'manual',
        deleted_at: String,
        purgeAfter: String,
      });
      t.equal(Date.parse(deleted.purgeAfter!) - Date.parse(deleted.deleted_at!), window, 'resolved at deletion time');
      t.strictSame(await listed(t, root, 'acme', held.id), deleted, 'the listing shows the same marks');
      t.match(await ledger(gw, 'snapshot-soft-deleted'), [
        {
          principal: 'root',
          actor_type: 'human',
          marketplace: 'acme',
          detail: new RegExp(`snapshot ${held.id}: manual`),
        },
      ]);

      await assertNothingChanged(t, gw, async () => {
        await expectProblem(t, await root.delete(`/api/v1/snapshots/${held.id}`), 409, 'snapshot-deleted', 'again');
        // A decision waits for the restore (docs/decisions: deletion).
        await expectProblem(t, await root.post(`/api/v1/snapshots/${held.id}/approve`), 409, 'snapshot-deleted');
        await expectProblem(t, await root.post(`/api/v1/snapshots/${held.id}/reject`), 409, 'snapshot-deleted');
      });

      // Content reads of a soft-deleted snapshot keep working until purge.
      const content = await expectJson<{ plugins: unknown[] }>(
        t,
        await root.get(`/api/v1/snapshots/${held.id}/content`),
        200,
      );
      t.ok(content.plugins.length > 0, 'the content inventory');
      const files = await expectJson<{ entries: { path: string }[] }>(
        t,
        await root.get(`/api/v1/snapshots/${held.id}/files`),
        200,
      );
      t.ok(
        files.entries.some((e) => e.path.startsWith('.claude-plugin')),
        'the tree listing',
      );
      const manifest = await root.get(`/api/v1/snapshots/${held.id}/file?path=.claude-plugin/marketplace.json`);
      t.equal(manifest.status, 200, 'a file');
    },
  );

  t.test('restore inside the window clears the marks; then approval works and DELETE refuses it', async (t) => {
    const restored = await expectJson<Snapshot>(t, await root.post(`/api/v1/snapshots/${held.id}/restore`), 200);
    t.notOk('deleted_at' in restored || 'purgeAfter' in restored || 'deleted_reason' in restored, 'no marks');
    t.strictSame(await listed(t, root, 'acme', held.id), restored);
    t.match(await ledger(gw, 'snapshot-restored'), [{ principal: 'root', marketplace: 'acme' }]);
    await expectJson(t, await root.post(`/api/v1/snapshots/${held.id}/approve`), 200);
    await assertNothingChanged(t, gw, async () => {
      const problem = await expectProblem(
        t,
        await root.delete(`/api/v1/snapshots/${held.id}`),
        409,
        'snapshot-not-deletable',
        'spec: "409 if approved"',
      );
      t.match(problem.detail, /approved/);
    });
  });
});

t.test('restore after purgeAfter and after the purge: 409; the purged row leaves every read', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const admin = { principal: 'root', actorType: 'human' as const, claims: {} };
  const snap = await ingested(t, root, 'acme');
  const deleted = await expectJson<Snapshot>(t, await root.delete(`/api/v1/snapshots/${snap.id}`), 200);
  const due = deleted.purgeAfter!;

  await assertNothingChanged(t, gw, async () => {
    t.equal(
      await refusal(
        restoreSnapshot(gw.deps, admin, snap.id, { ...systemMeta(due), principal: 'root', actorType: 'human' }),
      ),
      'restore-window-elapsed',
      'spec: restore only "before purgeAfter"',
    );
    t.equal(
      await refusal(recordPurge(gw.deps, snap.id, systemMeta(new Date(Date.parse(due) - 1).toISOString()))),
      'conflict',
      'no purge before purgeAfter',
    );
  });

  t.match(await recordPurge(gw.deps, snap.id, systemMeta(due)), {
    snapshotId: snap.id,
    withdrawn: false,
    purgedAt: due,
  });
  t.equal(await recordPurge(gw.deps, snap.id, systemMeta(due)), null, 'a repeat records nothing');
  t.equal(await listed(t, root, 'acme', snap.id), undefined, 'spec: "row deleted"');
  t.match(
    await ledger(gw, 'snapshot-purged'),
    [{ principal: 'system', marketplace: 'acme' }],
    'ledger keeps the record',
  );
  await assertNothingChanged(t, gw, async () => {
    await expectProblem(t, await root.post(`/api/v1/snapshots/${snap.id}/restore`), 409, 'restore-window-elapsed');
    await expectProblem(t, await root.delete(`/api/v1/snapshots/${snap.id}`), 409, 'snapshot-deleted');
    await expectProblem(t, await root.get(`/api/v1/snapshots/${snap.id}/content`), 404, 'snapshot-not-found');
  });
});

t.test('a removed marketplace: its withdrawn snapshot is deleted and purged, and its row stays', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = session(gw, 'root');
  const snap = await ingested(t, root, 'gone');
  await expectJson(t, await root.post(`/api/v1/snapshots/${snap.id}/approve`), 200);
  await expectJson(t, await root.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }), 200);
  // The listing shows live marketplaces only: the use case's answer is the row.
  const deleted = await softDeleteSnapshot(gw.deps, null, snap.id, 'superseded', systemMeta(new Date().toISOString()));
  t.match(deleted, { id: snap.id, state: 'revoked', administrative: true, deletedReason: 'superseded' });
  t.match(await ledger(gw, 'snapshot-soft-deleted'), [{ principal: 'retention-policy', actor_type: 'system' }]);
  t.match(await recordPurge(gw.deps, snap.id, systemMeta(deleted.purgeAfter!)), { withdrawn: true });
  await gw.settled();
  t.ok(
    await gw.core.pool.exists(sql.unsafe`select 1 from snapshots where id = ${snap.id} and deleted_at is not null`),
    'spec: "The row of an administratively withdrawn snapshot is never permanently removed"',
  );
  await assertNothingChanged(t, gw, async () => {
    await expectProblem(t, await root.post(`/api/v1/snapshots/${snap.id}/restore`), 409, 'restore-window-elapsed');
  });
});
