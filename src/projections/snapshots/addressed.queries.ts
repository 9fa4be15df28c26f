// The snapshot a request addresses, read in one statement, and with it everything an approval decides on.
// The records are built in SQL in the shapes the other queries answer (test/int/projections/addressed.test.ts
// compares them), so a decision costs one round trip to the read models instead of seven.
import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { GrantRecord } from '../roles/roles.queries.ts';
import type { MarketplaceRecord } from '../marketplaces/marketplaces.queries.ts';
import type { PolicyRuleRecord } from '../policy/policy.queries.ts';
import type { RunRecord, WaiverRecord } from '../vetting/vetting.queries.ts';
import type { SnapshotRecord } from './snapshots.queries.ts';

/** A timestamp as the pool's parser gives it (ISO-8601, UTC, milliseconds). */
const iso = (column: string) =>
  sql.fragment`to_char(${sql.identifier(column.split('.'))} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const snapshotJson = sql.fragment`jsonb_build_object(
  'id', s.id, 'marketplaceId', s.marketplace_id, 'sha', s.sha, 'upstreamSha', s.upstream_sha, 'state', s.state,
  'violation', s.violation, 'createdAt', ${iso('s.created_at')}, 'ingestedBy', s.ingested_by,
  'decidedBy', s.decided_by, 'decidedAt', ${iso('s.decided_at')}, 'decisionReason', s.decision_reason,
  'approvedAt', ${iso('s.approved_at')}, 'revokedBy', s.revoked_by, 'revokedAt', ${iso('s.revoked_at')},
  'administrative', s.administrative, 'deletedAt', ${iso('s.deleted_at')}, 'deletedReason', s.deleted_reason,
  'purgeAfter', ${iso('s.purge_after')}, 'unresolved', s.unresolved, 'leftOut', s.left_out)`;

const marketplaceJson = sql.fragment`jsonb_build_object(
  'id', m.id, 'name', m.name, 'origin', m.origin, 'url', m.url, 'pushPolicy', m.push_policy,
  'createdAt', ${iso('m.created_at')}, 'registeredBy', m.registered_by, 'removedAt', ${iso('m.removed_at')},
  'description', m.description, 'upstreamUpdatedAt', ${iso('m.upstream_updated_at')},
  'lastIngestAt', ${iso('m.last_ingest_at')}, 'lastIngestOutcome', m.last_ingest_outcome,
  'lastIngestReason', m.last_ingest_reason, 'syncMode', m.sync_mode, 'selection', m.selection)`;

const Found = z.object({ snapshot: z.unknown(), marketplace: z.unknown(), purged_at: z.string().nullable() });

export type Addressed = Readonly<{
  snapshot: SnapshotRecord | null;
  marketplace: MarketplaceRecord | null;
  /** When the snapshot's content was purged (its row kept: withdrawn administratively), else null. */
  purgedAt: string | null;
}>;

// jsonb may come back parsed or as text, depending on the driver's parsers: accept both.
const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

const addressedColumns = sql.fragment`
  (select ${snapshotJson} from snapshots s where s.id = a.id) as snapshot,
  (select ${marketplaceJson} from snapshots s join marketplaces m on m.id = s.marketplace_id
    where s.id = a.id) as marketplace,
  (select p.purged_at from purged_snapshots p where p.id = a.id) as purged_at`;

const addressedOf = (row: z.infer<typeof Found>): Addressed => ({
  snapshot: json<SnapshotRecord | null>(row.snapshot),
  marketplace: json<MarketplaceRecord | null>(row.marketplace),
  purgedAt: row.purged_at,
});

/** The snapshot `id` (null when unknown), its marketplace (removed ones too) and its purge, in one statement. */
export async function addressedRead(db: CommonQueryMethods, id: number): Promise<Addressed> {
  return addressedOf(await db.one(sql.type(Found)`select ${addressedColumns} from (select ${id}::bigint as id) a`));
}

const ApprovalRow = Found.extend({
  grants: z.unknown(),
  run: z.unknown(),
  waivers: z.unknown(),
  withdrawn: z.unknown(),
  rules: z.unknown(),
});

export type ApprovalRead = Addressed &
  Readonly<{
    /** The principal's grants that still mean something (none on a removed marketplace). */
    grants: readonly GrantRecord[];
    /** The snapshot's latest vetting run. */
    run: RunRecord | null;
    /** The marketplace's waivers, newest first. */
    waivers: readonly WaiverRecord[];
    /** Commits withdrawn administratively from a marketplace of this name. */
    withdrawnShas: readonly string[];
    /** The enabled policy rules, by name. */
    rules: readonly PolicyRuleRecord[];
  }>;

/**
 * The addressed snapshot and what approving it decides on, in one statement: the actor's grants, the latest
 * vetting run, the marketplace's waivers, the withdrawn commits of its name and the enabled policy rules.
 */
export async function approvalRead(db: CommonQueryMethods, id: number, principal: string): Promise<ApprovalRead> {
  const row = await db.one(sql.type(ApprovalRow)`
    select ${addressedColumns},
      coalesce((select jsonb_agg(jsonb_build_object('grantId', g.id, 'principal', g.principal, 'role', g.role,
          'marketplace', g.marketplace, 'marketplaceId', g.marketplace_id, 'grantedBy', g.granted_by,
          'grantedAt', ${iso('g.granted_at')}) order by g.id)
        from role_grants g where g.principal = ${principal} and (g.marketplace_id is null
          or exists (select 1 from marketplaces gm where gm.id = g.marketplace_id and gm.removed_at is null))),
        '[]') as grants,
      (select jsonb_build_object('runId', r.run_id, 'snapshotId', r.snapshot_id, 'sha', r.sha, 'trigger', r.trigger,
          'outcome', r.outcome, 'mode', r.mode, 'startedAt', ${iso('r.started_at')},
          'finishedAt', ${iso('r.finished_at')}, 'chain', r.chain, 'verdicts', r.verdicts)
        from vetting_runs r where r.snapshot_id = a.id order by r.run_id desc limit 1) as run,
      coalesce((select jsonb_agg(jsonb_build_object('waiverId', w.id, 'marketplaceId', w.marketplace_id,
          'marketplace', w.marketplace, 'snapshotId', w.snapshot_id, 'ruleId', w.rule_id, 'scope', w.scope,
          'scopeValue', w.scope_value, 'justification', w.justification, 'approvedBy', w.approved_by,
          'createdAt', ${iso('w.created_at')}, 'expiresAt', ${iso('w.expires_at')},
          'revokedAt', ${iso('w.revoked_at')}, 'revokedBy', w.revoked_by) order by w.id desc)
        from waivers w join snapshots s on s.marketplace_id = w.marketplace_id where s.id = a.id), '[]') as waivers,
      coalesce((select jsonb_agg(distinct x.sha) from snapshots x join marketplaces xm on xm.id = x.marketplace_id
        where x.administrative and xm.name = (select m.name from snapshots s join marketplaces m
          on m.id = s.marketplace_id where s.id = a.id)), '[]') as withdrawn,
      coalesce((select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'description', p.description,
          'expression', p.expression, 'enabled', p.enabled, 'createdBy', p.created_by,
          'createdAt', ${iso('p.created_at')}, 'updatedBy', p.updated_by, 'updatedAt', ${iso('p.updated_at')})
          order by p.name)
        from policy_rules p where p.enabled), '[]') as rules
    from (select ${id}::bigint as id) a`);
  return {
    ...addressedOf(row),
    grants: json<GrantRecord[]>(row.grants),
    run: json<RunRecord | null>(row.run),
    waivers: json<WaiverRecord[]>(row.waivers),
    withdrawnShas: json<string[]>(row.withdrawn),
    rules: json<PolicyRuleRecord[]>(row.rules),
  };
}
