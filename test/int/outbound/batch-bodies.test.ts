// An audit batch's body is built more than once: prepared when the batch is offered, built again for a retry or
// after a restart. Every build must give the same bytes, so the checkpoint it carries cannot depend on when the
// ledger's read model learnt of a checkpoint: one signed just before the offer but recorded after it never goes
// with that batch.
import t from 'tap';
import { appendFacts } from '../../../src/adapters/eventstore/append-facts.ts';
import { auditBatchBody, batchBodies } from '../../../src/application/outbound/batch-bodies.ts';
import { fact } from '../../../src/domain/events.ts';
import type { DueBatch } from '../../../src/projections/webhooks/deliveries.queries.ts';
import { projectionsFor } from '../../../src/projections/registry.ts';
import { GitStore } from '../../../src/adapters/git/git-store.ts';
import { metadata, testCore } from '../../support/core.ts';

const checkpoint = (entryId: number, signedAt: string) =>
  fact('audit-checkpoint-signed', { entryId, hash: `h${entryId}`, signedAt, kid: 'k1', jws: `jws-${entryId}` });

const carried = (body: string) =>
  (JSON.parse(body) as { data: { checkpoint: { entryId: number } | null } }).data.checkpoint?.entryId ?? null;

t.test('a batch carries the newest checkpoint signed by its offer and recorded before it', async (t) => {
  const projections = projectionsFor({ gitStore: new GitStore(t.testdir()) }).filter((p) => p.name === 'ledger');
  const core = await testCore(t, { projections });
  const append = async (stream: string, event: ReturnType<typeof fact>, at: string) =>
    (await appendFacts(core.store, stream, [event], metadata({ at }), 'any')).position;

  await append('audit-checkpoint', checkpoint(1, '2026-03-01T10:00:00.000Z'), '2026-03-01T10:00:00.000Z');
  const offeredAt = '2026-03-01T10:00:05.000Z';
  const offer = fact('audit-batch-offered', { sinkId: 1, name: 'siem', from: 0, to: 0, count: 0, at: offeredAt });
  const position = await append('audit-sink-batches-1', offer, offeredAt);
  const batch: DueBatch = { sink: 'siem', from: 0, to: 0, at: offeredAt, position };

  // Prepared before the ledger has applied the offer: the build waits for it.
  const bodies = batchBodies(core);
  bodies.prepare(batch);
  // Signed a second before the offer, recorded after it; then one signed after the offer.
  await append('audit-checkpoint', checkpoint(2, '2026-03-01T10:00:04.000Z'), '2026-03-01T10:00:06.000Z');
  await append('audit-checkpoint', checkpoint(3, '2026-03-01T10:00:07.000Z'), '2026-03-01T10:00:07.000Z');
  await core.runner.catchUp();

  const prepared = await bodies.take(batch);
  const rebuilt = await auditBatchBody(core, batch);
  t.equal(carried(prepared), 1, 'the prepared body carries the checkpoint recorded before the offer');
  t.equal(rebuilt, prepared, 'a body built again, with every checkpoint applied, is the same bytes');

  // An offer timed before the third checkpoint's signing but recorded after it (the clock is not the order).
  const laterAt = '2026-03-01T10:00:06.500Z';
  const laterOffer = fact('audit-batch-offered', { sinkId: 1, name: 'siem', from: 0, to: 0, count: 0, at: laterAt });
  const later: DueBatch = {
    ...batch,
    at: laterAt,
    position: await append('audit-sink-batches-1', laterOffer, laterAt),
  };
  await core.runner.catchUp();
  t.equal(
    carried(await auditBatchBody(core, later)),
    2,
    'a later offer carries the newest recorded before it and signed by it',
  );
  const empty: DueBatch = { ...batch, position: 1n };
  t.equal(carried(await auditBatchBody(core, empty)), null, 'an offer before any checkpoint carries none (null)');
});
