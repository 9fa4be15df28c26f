import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { waiverDecider } from '../../domain/vetting/waiver.decider.ts';
import { marketplaceById } from '../../projections/marketplaces/marketplaces.queries.ts';
import { waiverById, type WaiverRecord } from '../../projections/vetting/vetting.queries.ts';
import { addressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { requireApprover } from '../access/standing.ts';

const readModels = ['vetting', 'ledger'];

export type WaiverPorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'gitStore' | 'ids' | 'access'>;

/** The waiver request as sent: every field may be missing, which the decider refuses with a sentence naming it. */
export type WaiverRequest = Readonly<{
  ruleId?: string;
  scope?: string;
  path?: string | null;
  justification?: string;
  expiresAt?: string | null;
}>;

async function reread(deps: Pick<Ports, 'pool'>, waiverId: number): Promise<WaiverRecord> {
  const waiver = await waiverById(deps.pool, waiverId);
  if (!waiver) throw new Error(`waiver ${waiverId} missing from its read model after its command`);
  return waiver;
}

/**
 * A waiver request (docs/vetting.md, Waivers): the marketplace, and for SNAPSHOT scope the commit, are taken from the
 * addressed snapshot; the approver is the actor (approver of that marketplace, or admin).
 */
export async function createWaiver(
  deps: WaiverPorts,
  snapshotId: number,
  actor: Actor,
  wanted: WaiverRequest,
  meta: CommandMeta,
): Promise<WaiverRecord> {
  const { snapshot, marketplace } = await addressedSnapshot(deps, snapshotId);
  await requireApprover(deps, actor, marketplace);
  const { scope } = wanted;
  if (scope !== 'SNAPSHOT' && scope !== 'PATH') {
    const problem = scope === undefined ? 'scope is required' : `scope '${scope}' is not usable`;
    throw reject('invalid-waiver', `${problem}: SNAPSHOT or PATH`);
  }
  const waiverId = await deps.ids('waiver');
  await execute(
    deps,
    waiverDecider,
    streams.waivers(marketplace.id),
    {
      type: 'create-waiver',
      data: {
        waiverId,
        marketplace: { id: marketplace.id, name: marketplace.name },
        snapshot: { id: snapshot.id, sha: snapshot.sha, state: snapshot.state, withdrawn: snapshot.administrative },
        ruleId: wanted.ruleId ?? '',
        scope,
        path: wanted.path ?? null,
        justification: wanted.justification ?? '',
        expiresAt: wanted.expiresAt ?? null,
      },
      meta,
    },
    readModels,
  );
  return reread(deps, waiverId);
}

/** Revokes an active waiver (the row stays, active false); an unknown or revoked one is 404. */
export async function revokeWaiver(
  deps: WaiverPorts,
  waiverId: number,
  actor: Actor,
  meta: CommandMeta,
): Promise<WaiverRecord> {
  const waiver = await waiverById(deps.pool, waiverId);
  const marketplace = waiver ? await marketplaceById(deps.pool, waiver.marketplaceId) : null;
  if (!waiver || !marketplace || waiver.revokedAt !== null) {
    throw reject('waiver-not-found', `no waiver ${waiverId}, or it is already revoked`);
  }
  await requireApprover(deps, actor, marketplace);
  const command = { type: 'revoke-waiver', data: { waiverId }, meta } as const;
  await execute(deps, waiverDecider, streams.waivers(marketplace.id), command, readModels);
  return reread(deps, waiverId);
}
