import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { addressedSnapshot } from '../snapshots/addressed-snapshot.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { runVetting, type VettingPorts } from './run-vetting.ts';
import { requireApprover } from '../access/standing.ts';
import { reportOf } from './report.use-case.ts';

export type RerunPorts = VettingPorts & Pick<Ports, 'access'>;

/**
 * Vets a snapshot that is not approved again: a held one whose external scanner answered PENDING, or
 * one whose vetting at ingestion could not be made. The run has trigger `ingestion`, as it redoes the
 * ingestion's vetting (every verdict recorded, no re-vet classification, nothing revoked); an approved
 * snapshot is re-vetted instead (409). Answers the vetting report as it stands after the run.
 */
export async function rerunVetting(deps: RerunPorts, snapshotId: number, actor: Actor, meta: CommandMeta) {
  const subject = await addressedSnapshot(deps, snapshotId);
  await requireApprover(deps, actor, subject.marketplace);
  if (subject.snapshot.state === 'approved') {
    const revet = `POST /api/v1/snapshots/${snapshotId}/revet`;
    throw reject('conflict', `snapshot ${snapshotId} is approved: re-vet it with ${revet}`);
  }
  await runVetting(deps, subject.snapshot, subject.marketplace, 'ingestion', meta);
  return reportOf(deps, subject, deps.clock.instant());
}
