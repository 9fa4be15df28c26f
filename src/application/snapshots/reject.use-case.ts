import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor } from '../kernel/ports.ts';

import { approverOf, decidedRow, readModels, type Decided, type DecidePorts } from './approve.use-case.ts';

/** Reject a held or revoked snapshot, with the reviewer's reason when one is given (recorded and shown). */
export async function rejectSnapshot(
  deps: DecidePorts,
  snapshotId: number,
  actor: Actor,
  reason: string | null,
  meta: CommandMeta,
): Promise<Decided> {
  const subject = await approverOf(deps, snapshotId, actor);
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(subject.marketplace.id),
    {
      type: 'reject-snapshot',
      data: { snapshotId, reason },
      meta,
    },
    readModels,
  );
  const rejected = decision.events.find((e) => e.type === 'snapshot-rejected');
  if (rejected?.type !== 'snapshot-rejected') throw new Error('rejection accepted without snapshot-rejected');
  return { snapshot: decidedRow(subject.snapshot, rejected) };
}
