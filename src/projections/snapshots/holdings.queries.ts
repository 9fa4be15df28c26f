import { z } from 'zod';
import { sql, type DatabasePool } from '../../adapters/postgres/pool.ts';
import { marketplacesProjection } from '../marketplaces/marketplaces.projection.ts';
import { tokensProjection } from '../tokens/tokens.projection.ts';
import { snapshotsProjection } from './snapshots.projection.ts';

const CheckpointRow = z.object({ name: z.string(), version: z.number(), position: z.bigint() });
const MarketplaceRow = z.object({ id: z.bigint(), name: z.string(), live: z.boolean() });
const CaptureRow = z.object({
  id: z.bigint(),
  marketplace_id: z.bigint(),
  sha: z.string(),
  state: z.enum(['held', 'approved', 'rejected', 'revoked']),
  revoked_at: z.string().nullable(),
  was_revoked: z.boolean(),
});

export type IndexedMarketplace = Readonly<{ id: number; name: string; live: boolean }>;
export type IndexedCapture = Readonly<{
  id: number;
  marketplaceId: number;
  sha: string;
  state: 'held' | 'approved' | 'rejected' | 'revoked';
  revokedAt: string | null;
  wasRevoked: boolean;
}>;

/** What the revocation check's memory starts from: the rows, and the position each read model had reached. */
export type HoldingsSource = Readonly<{
  marketplacesAt: bigint;
  snapshotsAt: bigint;
  tokensAt: bigint;
  marketplaces: readonly IndexedMarketplace[];
  captures: readonly IndexedCapture[];
}>;

/**
 * Every marketplace (live or removed) and every capture's state, with the checkpoints of the read models
 * they come from, read in one repeatable-read transaction: each projection writes its rows and its
 * checkpoint together, so the rows are exactly those events up to the checkpoint made. Null when a read
 * model is missing or built by another version of its projection (the leader rebuilds it): the caller
 * then starts from the events alone.
 */
export async function holdingsSource(pool: DatabasePool): Promise<HoldingsSource | null> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`set transaction isolation level repeatable read, read only`);
    const present = await tx.oneFirst(sql.type(z.object({ present: z.boolean() }))`
      select to_regclass('projection_checkpoints') is not null and to_regclass('snapshots') is not null
        and to_regclass('marketplaces') is not null as present`);
    if (!present) return null;
    const checkpoints = await tx.any(sql.type(CheckpointRow)`
      select name, version, position from projection_checkpoints
      where name in (${snapshotsProjection.name}, ${marketplacesProjection.name}, ${tokensProjection.name})`);
    const at = (projection: { name: string; version: number }): bigint | null => {
      const row = checkpoints.find((c) => c.name === projection.name);
      return row && row.version === projection.version ? row.position : null;
    };
    const snapshotsAt = at(snapshotsProjection);
    const marketplacesAt = at(marketplacesProjection);
    const tokensAt = at(tokensProjection);
    if (snapshotsAt === null || marketplacesAt === null || tokensAt === null) return null;
    const marketplaces = await tx.any(
      sql.type(MarketplaceRow)`select id, name, removed_at is null as live from marketplaces`,
    );
    const captures = await tx.any(sql.type(CaptureRow)`
      select id, marketplace_id, sha, state, revoked_at, was_revoked from snapshots order by id`);
    return {
      marketplacesAt,
      snapshotsAt,
      tokensAt,
      marketplaces: marketplaces.map((m) => ({ id: Number(m.id), name: m.name, live: m.live })),
      captures: captures.map((c) => ({
        id: Number(c.id),
        marketplaceId: Number(c.marketplace_id),
        sha: c.sha,
        state: c.state,
        revokedAt: c.revoked_at,
        wasRevoked: c.was_revoked,
      })),
    };
  });
}
