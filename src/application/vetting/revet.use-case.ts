import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { snapshotsOf } from '../../projections/snapshots/snapshots.queries.ts';
import { addressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { revet, type VettingPorts } from './run-vetting.ts';
import { liveOr404 } from '../marketplaces/registration.use-case.ts';
import { requireApprover } from '../access/standing.ts';

export type RevetPorts = VettingPorts & Pick<Ports, 'access'>;

/** A manual re-vet of one approved snapshot (approver of its marketplace, or admin); 409 for any other state. */
export async function revetSnapshot(deps: RevetPorts, snapshotId: number, actor: Actor, meta: CommandMeta) {
  const { snapshot, marketplace } = await addressedSnapshot(deps, snapshotId);
  await requireApprover(deps, actor, marketplace);
  return revet(deps, snapshot, marketplace, meta);
}

/** A manual re-vet of every approved snapshot of a live marketplace, one after the other. */
export async function revetMarketplace(deps: RevetPorts, name: string, actor: Actor, meta: CommandMeta) {
  const marketplace = await liveOr404(deps, name);
  await requireApprover(deps, actor, marketplace);
  const approved = (await snapshotsOf(deps.pool, [marketplace.id])).filter((s) => s.state === 'approved');
  const results = [];
  for (const snapshot of approved) results.push(await revet(deps, snapshot, marketplace, meta));
  return { marketplace: marketplace.name, results };
}
