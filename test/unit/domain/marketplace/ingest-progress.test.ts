// An ingest reports its phases and counts; waiting ingests start oldest first, never two of one marketplace.
import t from 'tap';
import {
  advanced,
  foldsInto,
  queuedProgress,
  started,
  startable,
  type IngestProgress,
  type ProgressReport,
} from '../../../../src/domain/marketplace/ingest-progress.ts';

const at = '2026-03-01T10:00:00.000Z';
const run = (...reports: ProgressReport[]): IngestProgress => reports.reduce(advanced, started(queuedProgress, at));

t.test('an ingest waits as queued, then fetches from the moment it starts', async (t) => {
  t.equal(queuedProgress.phase, 'queued');
  t.equal(queuedProgress.startedAt, null);
  const begun = started(queuedProgress, at);
  t.same([begun.phase, begun.startedAt], ['fetch', at]);
  t.equal(started(begun, '2026-03-01T11:00:00.000Z').startedAt, at, 'started once only');
});

t.test('phases move forward in order and never back', async (t) => {
  const p = run(
    { type: 'phase', phase: 'compose' },
    { type: 'phase', phase: 'fetch' },
    { type: 'phase', phase: 'capture' },
    { type: 'captured', snapshotId: 7 },
  );
  t.equal(p.phase, 'capture', 'a late report of an earlier phase does not move it back');
  t.equal(p.snapshotId, 7);
});

t.test('counts: externals n of m, files read, connectors done with the one running', async (t) => {
  const resolving = run({ type: 'externals', done: 2, total: 5 });
  t.same([resolving.phase, resolving.externals], ['resolve', { done: 2, total: 5 }], 'a count enters its phase');
  const reading = run({ type: 'externals', done: 5, total: 5 }, { type: 'files', done: 300, total: 412 });
  t.same([reading.phase, reading.externals, reading.files], ['tree', { done: 5, total: 5 }, { done: 300, total: 412 }]);
  const vetting = advanced(reading, { type: 'connectors', done: 2, total: 6, current: 'hooks' });
  t.same([vetting.phase, vetting.connectors], ['vetting', { done: 2, total: 6, current: 'hooks' }]);
  t.same(vetting.files, { done: 300, total: 412 }, 'the file count stays beside the connectors');
  t.same(run({ type: 'files', done: 9, total: 4 }).files, { done: 4, total: 4 }, 'done is at most total');
  t.same(run({ type: 'externals', done: -1, total: 3 }).externals, { done: 0, total: 3 }, 'and at least 0');
});

t.test('which waiting ingests start: oldest first, up to the free slots, one per marketplace', async (t) => {
  const waiting = [
    { marketplaceId: 1, tag: 'a1' },
    { marketplaceId: 2, tag: 'b1' },
    { marketplaceId: 1, tag: 'a2' },
    { marketplaceId: 3, tag: 'c1' },
  ];
  const tags = (picked: typeof waiting) => picked.map((w) => w.tag);
  t.same(tags(startable(waiting, new Set(), 2)), ['a1', 'b1']);
  t.same(tags(startable(waiting, new Set(), 10)), ['a1', 'b1', 'c1'], 'never two of one marketplace');
  t.same(tags(startable(waiting, new Set([1]), 2)), ['b1', 'c1'], 'a running marketplace keeps its place');
  t.same(tags(startable(waiting, new Set([1, 2]), 0)), [], 'no free slot');
});

t.test('a request nobody waits on joins a waiting one of its marketplace nobody waits on', async (t) => {
  const waiting = [
    { marketplaceId: 1, background: false, trigger: 'on-demand' as const },
    { marketplaceId: 2, background: true, trigger: 'scheduled' as const },
  ];
  t.equal(foldsInto(waiting, { marketplaceId: 2, background: true, trigger: 'webhook' }), waiting[1]);
  t.equal(foldsInto(waiting, { marketplaceId: 1, background: true, trigger: 'webhook' }), undefined, 'not a POST');
  t.equal(foldsInto(waiting, { marketplaceId: 2, background: false, trigger: 'on-demand' }), undefined, 'a POST waits');
});
