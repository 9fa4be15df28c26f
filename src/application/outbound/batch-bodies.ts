import type { DueBatch } from '../../projections/webhooks/deliveries.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { auditBatchBody } from './audit-sink-push.duty.ts';

/**
 * Audit batch bodies built ahead: the push prepares a batch's body as it offers it, while the batch before it
 * is on its way, and the dispatcher takes it when it sends the batch (or builds it then, when it was not
 * prepared or was dropped). A body depends only on its batch (settled entries and the checkpoint signed by the
 * time it was offered), so a prepared body is the bytes the dispatcher would build. At most `limit` are held.
 */
export type BatchBodies = Readonly<{
  prepare: (batch: DueBatch) => void;
  take: (batch: DueBatch) => Promise<string>;
}>;

const keyOf = (batch: DueBatch) => `${batch.sink}\n${batch.from}\n${batch.to}\n${Date.parse(batch.at)}`;

export function batchBodies(deps: Pick<Ports, 'pool'>, limit = 4): BatchBodies {
  const ready = new Map<string, Promise<string>>();
  return {
    prepare(batch) {
      const key = keyOf(batch);
      if (ready.has(key)) return;
      const oldest = ready.keys().next();
      if (ready.size >= limit && !oldest.done) ready.delete(oldest.value);
      const body = auditBatchBody(deps, batch);
      // A failed build is dropped: the dispatcher builds the body again when it sends the batch.
      body.catch(() => ready.delete(key));
      ready.set(key, body);
    },
    take(batch) {
      const key = keyOf(batch);
      const body = ready.get(key);
      ready.delete(key);
      return body ? body.catch(() => auditBatchBody(deps, batch)) : auditBatchBody(deps, batch);
    },
  };
}
