import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { VerdictState } from '../../domain/kernel/findings.ts';
import type { WaiverTerms } from '../../domain/vetting/outcome.ts';
import { defaultSettings, type VettingSettings } from '../../domain/vetting/settings.decider.ts';
import type {
  Affected,
  ChainMode,
  RecordedOutcome,
  Verdict,
  VettingTrigger,
  WaiverScope,
} from '../../domain/vetting/vetting.events.ts';
import { maybeRecord } from '../rows.ts';

// jsonb may come back parsed or as text, depending on the driver's parsers: accept both.
const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

const RunRow = z.object({
  run_id: z.bigint(),
  snapshot_id: z.bigint(),
  sha: z.string(),
  trigger: z.string(),
  outcome: z.string(),
  mode: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  chain: z.unknown(),
  verdicts: z.unknown(),
});

export type RunRecord = Readonly<{
  runId: number;
  snapshotId: number;
  sha: string;
  trigger: VettingTrigger;
  outcome: RecordedOutcome;
  mode: ChainMode;
  startedAt: string;
  finishedAt: string;
  chain: readonly string[];
  verdicts: readonly Verdict[];
}>;

const toRun = (r: z.infer<typeof RunRow>): RunRecord => ({
  runId: Number(r.run_id),
  snapshotId: Number(r.snapshot_id),
  sha: r.sha,
  trigger: r.trigger as VettingTrigger,
  outcome: r.outcome as RecordedOutcome,
  mode: r.mode as ChainMode,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  chain: json<string[]>(r.chain),
  verdicts: json<Verdict[]>(r.verdicts),
});

export async function latestRun(db: CommonQueryMethods, snapshotId: number): Promise<RunRecord | null> {
  return maybeRecord(
    db,
    sql.type(RunRow)`
    select run_id, snapshot_id, sha, trigger, outcome, mode, started_at, finished_at, chain, verdicts
    from vetting_runs where snapshot_id = ${snapshotId} order by run_id desc limit 1`,
    toRun,
  );
}

/**
 * Held snapshots of live marketplaces that have no vetting run: their ingestion was cut off between the
 * capture and the run (a crash), or the run could not be made.
 */
export async function unvettedHeldSnapshots(db: CommonQueryMethods, limit: number): Promise<number[]> {
  const ids = await db.anyFirst(sql.type(z.object({ id: z.bigint() }))`
    select s.id from snapshots s join marketplaces m on m.id = s.marketplace_id and m.removed_at is null
    where s.state = 'held' and not exists (select 1 from vetting_runs r where r.snapshot_id = s.id)
    order by s.id limit ${limit}`);
  return ids.map(Number);
}

/** The previous state of each connector on the latest run (for re-vet's "only where a verdict changed"). */
export async function lastStates(db: CommonQueryMethods, snapshotId: number): Promise<Map<string, VerdictState>> {
  const run = await latestRun(db, snapshotId);
  return new Map((run?.verdicts ?? []).map((v) => [v.connector, v.state]));
}

const SettingsRow = z.object({ mode: z.string(), chain_order: z.unknown() });
const ToggleRow = z.object({ vetter: z.string(), marketplace_id: z.bigint(), enabled: z.boolean() });

export async function vettingSettings(db: CommonQueryMethods): Promise<VettingSettings> {
  const [row, toggles] = await Promise.all([
    db.maybeOne(sql.type(SettingsRow)`select mode, chain_order from vetting_settings where id = 1`),
    db.any(sql.type(ToggleRow)`select vetter, marketplace_id, enabled from vetter_toggles`),
  ]);
  const global = new Map<string, boolean>();
  const perMarketplace = new Map<string, boolean>();
  for (const t of toggles) {
    if (t.marketplace_id === 0n) global.set(t.vetter, t.enabled);
    else perMarketplace.set(`${t.marketplace_id}/${t.vetter}`, t.enabled);
  }
  return {
    mode: (row?.mode as ChainMode | undefined) ?? defaultSettings.mode,
    order: row?.chain_order === null || row?.chain_order === undefined ? null : json<string[]>(row.chain_order),
    global,
    perMarketplace,
  };
}

const ToggleDetailRow = z.object({
  vetter: z.string(),
  marketplace_id: z.bigint(),
  marketplace: z.string().nullable(),
  enabled: z.boolean(),
  reason: z.string(),
  changed_by: z.string(),
  changed_at: z.string(),
});
export type ToggleRecord = Readonly<{
  vetter: string;
  scope: 'global' | 'marketplace';
  marketplace: string | null;
  enabled: boolean;
  reason: string;
  changedBy: string;
  changedAt: string;
}>;

/** Every recorded toggle: global ones, then per marketplace (all when `marketplaceId` is undefined). */
export async function vetterToggles(db: CommonQueryMethods, marketplaceId?: number): Promise<ToggleRecord[]> {
  const filter =
    marketplaceId === undefined ? sql.fragment`true` : sql.fragment`marketplace_id in (0, ${marketplaceId})`;
  const rows = await db.any(sql.type(ToggleDetailRow)`
    select vetter, marketplace_id, marketplace, enabled, reason, changed_by, changed_at from vetter_toggles
    where ${filter} order by marketplace_id, vetter`);
  return rows.map((r) => ({
    vetter: r.vetter,
    scope: r.marketplace_id === 0n ? 'global' : 'marketplace',
    marketplace: r.marketplace,
    enabled: r.enabled,
    reason: r.reason,
    changedBy: r.changed_by,
    changedAt: r.changed_at,
  }));
}

const WaiverRow = z.object({
  id: z.bigint(),
  marketplace_id: z.bigint(),
  marketplace: z.string(),
  snapshot_id: z.bigint(),
  rule_id: z.string(),
  scope: z.string(),
  scope_value: z.string(),
  justification: z.string(),
  approved_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  revoked_by: z.string().nullable(),
});

export type WaiverRecord = WaiverTerms &
  Readonly<{
    marketplaceId: number;
    marketplace: string;
    snapshotId: number;
    justification: string;
    createdAt: string;
    revokedBy: string | null;
  }>;

const waiverColumns = sql.fragment`id, marketplace_id, marketplace, snapshot_id, rule_id, scope, scope_value, justification, approved_by,
  created_at, expires_at, revoked_at, revoked_by`;

const toWaiver = (r: z.infer<typeof WaiverRow>): WaiverRecord => ({
  waiverId: Number(r.id),
  marketplaceId: Number(r.marketplace_id),
  marketplace: r.marketplace,
  snapshotId: Number(r.snapshot_id),
  ruleId: r.rule_id,
  scope: r.scope as WaiverScope,
  scopeValue: r.scope_value,
  justification: r.justification,
  approvedBy: r.approved_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  revokedBy: r.revoked_by,
});

/** Newest first (GET /api/v1/marketplaces/{name}/waivers). */
export async function waiversOf(db: CommonQueryMethods, marketplaceId: number): Promise<WaiverRecord[]> {
  const rows = await db.any(
    sql.type(WaiverRow)`select ${waiverColumns} from waivers where marketplace_id = ${marketplaceId} order by id desc`,
  );
  return rows.map(toWaiver);
}

export async function waiverById(db: CommonQueryMethods, id: number): Promise<WaiverRecord | null> {
  return maybeRecord(db, sql.type(WaiverRow)`select ${waiverColumns} from waivers where id = ${id}`, toWaiver);
}

/** Marketplaces with a waiver past its expiry whose lapse is not recorded yet (the sweep's work list). */
export async function marketplacesWithLapsedWaivers(
  db: CommonQueryMethods,
  at: string,
  limit: number,
): Promise<number[]> {
  const rows = await db.anyFirst(sql.type(z.object({ marketplace_id: z.bigint() }))`
    select distinct marketplace_id from waivers
    where revoked_at is null and not lapse_recorded and expires_at <= ${at}::timestamptz limit ${limit}`);
  return rows.map(Number);
}

const AffectedRow = z.object({ principal: z.string(), fetches: z.bigint(), last_fetch: z.string() });

/** Who received a commit of a marketplace through the facade: upload-pack entries naming it. */
export async function fetchersOf(db: CommonQueryMethods, marketplaceId: number, sha: string): Promise<Affected[]> {
  const rows = await db.any(sql.type(AffectedRow)`
    select principal, count(*)::bigint as fetches, max(ts) as last_fetch from ledger_entries
    where event = 'upload-pack' and marketplace_id = ${marketplaceId} and sha = ${sha}
    group by principal order by principal`);
  return rows.map((r) => ({ principal: r.principal, fetches: Number(r.fetches), lastFetch: r.last_fetch }));
}
