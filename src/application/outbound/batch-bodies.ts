import { latestCheckpoint } from '../../projections/ledger/checkpoints.queries.ts';
import { exportedEntriesAfter } from '../../projections/ledger/ledger.queries.ts';
import { maxOffered } from '../../projections/webhooks/sinks.queries.ts';
import type { DueBatch } from '../../projections/webhooks/deliveries.queries.ts';
import type { Ports } from '../kernel/ports.ts';

/**
 * The body of an audit batch: `{type: 'audit.batch', timestamp, data: {sink, from, to, entries[], checkpoint}}`.
 * The entries are settled ledger entries, which never change, so every attempt sends the same bytes.
 */
export async function auditBatchBody(deps: Pick<Ports, 'pool' | 'waiter'>, batch: DueBatch): Promise<string> {
  // The latest signed head when the batch was offered goes with it, so a sink can check the chain it receives:
  // the newest checkpoint signed by the offer's time and recorded before the offer. A checkpoint is signed, then
  // recorded, so one signed just before the offer may be recorded after it; bounding by the offer's position as
  // well, once the ledger has applied it, keeps every build of the body, and so every attempt, the same bytes.
  await deps.waiter.waitFor(batch.position, ['ledger']);
  const entries = await exportedEntriesAfter(deps.pool, batch.from, batch.to - batch.from);
  const checkpoint = await latestCheckpoint(deps.pool, { notAfter: batch.at, before: batch.position });
  const head = JSON.stringify({ sink: batch.sink, from: batch.from, to: batch.to });
  const data = `${head.slice(0, -1)},"entries":${entries},"checkpoint":${JSON.stringify(checkpoint)}}`;
  return `{"type":"audit.batch","timestamp":${JSON.stringify(batch.at)},"data":${data}}`;
}

/**
 * Audit batch bodies built ahead: the push prepares a batch's body as it offers it, while the batch before it
 * is on its way, and the dispatcher takes it when it sends the batch (or builds it then, when it was not
 * prepared or was dropped). A body depends only on its batch (settled entries and the checkpoint recorded before
 * it was offered), so a prepared body is the bytes the dispatcher would build. At most `limit` are held
 * (by default as many as a sink may have offered).
 */
export type BatchBodies = Readonly<{
  prepare: (batch: DueBatch) => void;
  take: (batch: DueBatch) => Promise<string>;
}>;

const keyOf = (batch: DueBatch) => `${batch.sink}\n${batch.from}\n${batch.to}\n${batch.position}`;

export function batchBodies(deps: Pick<Ports, 'pool' | 'waiter'>, limit = maxOffered): BatchBodies {
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
