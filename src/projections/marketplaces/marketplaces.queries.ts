import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { PluginSelection } from '../../domain/snapshot/selection.ts';
import { maybeRecord } from '../rows.ts';

const StoredSelection = z.object({
  include: z.array(z.string()),
  exclude: z.array(z.string()),
  setAt: z.string(),
  setBy: z.string(),
});
/** The plugins an admin chose to serve (docs/marketplaces.md, Selection), with who set it and when. */
export type MarketplaceSelection = PluginSelection & Readonly<{ setAt: string; setBy: string }>;

// jsonb may come back parsed or as text, depending on the driver's parsers: accept both.
const selectionOf = (value: unknown): MarketplaceSelection | null =>
  value === null ? null : StoredSelection.parse(typeof value === 'string' ? JSON.parse(value) : value);

const MarketplaceRow = z.object({
  id: z.bigint(),
  name: z.string(),
  origin: z.enum(['upstream', 'hosted']),
  url: z.string().nullable(),
  push_policy: z.string().nullable(),
  created_at: z.string(),
  registered_by: z.string().nullable(),
  removed_at: z.string().nullable(),
  description: z.string().nullable(),
  upstream_updated_at: z.string().nullable(),
  last_ingest_at: z.string().nullable(),
  last_ingest_outcome: z.enum(['succeeded', 'failed']).nullable(),
  last_ingest_reason: z.string().nullable(),
  sync_mode: z.enum(['on-demand', 'scheduled', 'webhook']),
  selection: z.unknown(),
});

export type MarketplaceRecord = Readonly<{
  id: number;
  name: string;
  origin: 'upstream' | 'hosted';
  url: string | null;
  pushPolicy: string | null;
  createdAt: string;
  registeredBy: string | null;
  removedAt: string | null;
  description: string | null;
  upstreamUpdatedAt: string | null;
  lastIngestAt: string | null;
  lastIngestOutcome: 'succeeded' | 'failed' | null;
  lastIngestReason: string | null;
  syncMode: 'on-demand' | 'scheduled' | 'webhook';
  /** Null: no selection, every plugin is served. A change takes effect at the next ingest. */
  selection: MarketplaceSelection | null;
}>;

const columns = sql.fragment`id, name, origin, url, push_policy, created_at, registered_by, removed_at, description,
  upstream_updated_at, last_ingest_at, last_ingest_outcome, last_ingest_reason, sync_mode, selection`;

const toRecord = (row: z.infer<typeof MarketplaceRow>): MarketplaceRecord => ({
  id: Number(row.id),
  name: row.name,
  origin: row.origin,
  url: row.url,
  pushPolicy: row.push_policy,
  createdAt: row.created_at,
  registeredBy: row.registered_by,
  removedAt: row.removed_at,
  description: row.description,
  upstreamUpdatedAt: row.upstream_updated_at,
  lastIngestAt: row.last_ingest_at,
  lastIngestOutcome: row.last_ingest_outcome,
  lastIngestReason: row.last_ingest_reason,
  syncMode: row.sync_mode,
  selection: selectionOf(row.selection ?? null),
});

export async function liveMarketplaces(db: CommonQueryMethods): Promise<MarketplaceRecord[]> {
  const rows = await db.any(
    sql.type(MarketplaceRow)`select ${columns} from marketplaces where removed_at is null order by name`,
  );
  return rows.map(toRecord);
}

export async function liveMarketplaceByName(db: CommonQueryMethods, name: string): Promise<MarketplaceRecord | null> {
  return maybeRecord(
    db,
    sql.type(MarketplaceRow)`select ${columns} from marketplaces where removed_at is null and name = ${name}`,
    toRecord,
  );
}

/** Any marketplace, removed ones included (their records stay readable by snapshot id). */
export async function marketplaceById(db: CommonQueryMethods, id: number): Promise<MarketplaceRecord | null> {
  return maybeRecord(db, sql.type(MarketplaceRow)`select ${columns} from marketplaces where id = ${id}`, toRecord);
}

/** The sealed webhook secret of a live marketplace in webhook mode, or null. */
export async function sealedWebhookSecret(db: CommonQueryMethods, marketplaceId: number): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ webhook_secret: z.string() }))`
    select webhook_secret from marketplaces
    where id = ${marketplaceId} and removed_at is null and sync_mode = 'webhook' and webhook_secret is not null`);
}
