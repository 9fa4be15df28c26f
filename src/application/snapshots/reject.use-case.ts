import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { Actor } from '../kernel/ports.ts';

import { approverOf, decided, type Decided, type DecidePorts } from './approve.use-case.ts';

/** Reject a held or revoked snapshot, with the reviewer's reason when one is given (recorded and shown). */
export async function rejectSnapshot(
  deps: DecidePorts,
  snapshotId: number,
  actor: Actor,
  reason: string | null,
  meta: CommandMeta,
): Promise<Decided> {
  const subject = await approverOf(deps, snapshotId, actor);
  return decided(deps, subject, { type: 'reject-snapshot', data: { snapshotId, reason }, meta }, 'snapshot-rejected');
}
