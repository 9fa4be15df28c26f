import type { Test } from 'tap';
import {
  RevisionConflict,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../../src/adapters/eventstore/port.ts';

const meta = { principal: 'alice', actorType: 'human' as const, correlationId: 'c-1', at: '2026-01-01T00:00:00.000Z' };
const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: meta });
let counter = 0;
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}-1`;

const until = async (done: () => boolean, ms = 20_000) => {
  for (let waited = 0; !done() && waited < ms; waited += 20) await new Promise((r) => setTimeout(r, 20));
};

/**
 * The one contract both event store adapters pass. `makeStore` gives a store on an
 * empty backend or one other tests share: the suite only asserts about its own streams.
 */
export function eventStoreContract(t: Test, makeStore: (t: Test) => Promise<EventStore>): void {
  t.test('append to a new stream and read it back in order with metadata', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('contract');
    const result = await store.append(stream, [ev('a-happened', { n: 1 }), ev('b-happened', { n: 2 })], 'no-stream');
    t.equal(result.nextRevision, 1n, 'revisions are 0-based: two events end at 1');
    const { events, revision } = await store.readStream(stream);
    t.equal(revision, 1n);
    t.strictSame(
      events.map((e) => [e.type, e.data, e.revision]),
      [
        ['a-happened', { n: 1 }, 0n],
        ['b-happened', { n: 2 }, 1n],
      ],
    );
    t.equal(events[0]?.metadata.principal, 'alice');
    t.equal(events[0]?.metadata.actorType, 'human');
    t.equal(events[0]?.metadata.correlationId, 'c-1');
    t.ok(events[0]!.position < events[1]!.position, 'positions increase within an append');
    t.equal(events[1]?.position, result.position, 'the append reports the position of its last event');
    t.match(events[0]?.recordedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    t.not(events[0]?.id, events[1]?.id, 'every event has its own id');
  });

  t.test('a missing stream reads as no-stream', async (t) => {
    const store = await makeStore(t);
    const { events, revision } = await store.readStream(fresh('missing'));
    t.strictSame(events, []);
    t.equal(revision, 'no-stream');
  });

  t.test('optimistic concurrency: a stale expected revision is refused and nothing is written', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('occ');
    await store.append(stream, [ev('one')], 'no-stream');
    await t.rejects(
      store.append(stream, [ev('two')], 'no-stream'),
      RevisionConflict,
      'no-stream on an existing stream',
    );
    await t.rejects(store.append(stream, [ev('two')], 5n), RevisionConflict, 'a revision from the future');
    const conflict = await store.append(stream, [ev('two')], 1n).catch((error: unknown) => error);
    t.type(conflict, RevisionConflict);
    t.equal((conflict as RevisionConflict).actual, 0n, 'the conflict reports the actual revision');
    t.equal((await store.readStream(stream)).events.length, 1, 'refused appends wrote nothing');
    await store.append(stream, [ev('two')], 0n);
    await store.append(stream, [ev('three')], 'any');
    t.equal((await store.readStream(stream)).revision, 2n);
  });

  t.test('racing appends at the same expected revision: exactly one wins', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('race');
    await store.append(stream, [ev('start')], 'no-stream');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.append(stream, [ev('racer', { i })], 0n)),
    );
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    t.ok(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => (r as PromiseRejectedResult).reason instanceof RevisionConflict),
    );
    t.equal((await store.readStream(stream)).events.length, 2);
  });

  t.test('readAll returns events after a position in global order', async (t) => {
    const store = await makeStore(t);
    const before = await store.head();
    const a = fresh('all');
    const b = fresh('all');
    await store.append(a, [ev('x', { k: 1 })], 'no-stream');
    await store.append(b, [ev('x', { k: 2 }), ev('x', { k: 3 })], 'no-stream');
    await store.append(a, [ev('x', { k: 4 })], 0n);
    const mine = (await store.readAll(before, 10_000)).filter((e) => e.streamId === a || e.streamId === b);
    t.strictSame(
      mine.map((e) => (e.data as { k: number }).k),
      [1, 2, 3, 4],
    );
    const positions = mine.map((e) => e.position);
    t.ok(
      positions.every((p, i) => i === 0 || p > positions[i - 1]!),
      'strictly increasing',
    );
    const rest = await store.readAll(positions[1]!, 10_000);
    t.ok(rest.length >= 2 && rest.every((e) => e.position > positions[1]!), 'strictly after the position given');
    t.equal((await store.readAll(before, 2)).length, 2, 'limit is honoured');
    t.ok((await store.head()) >= positions[3]!, 'head is at least the newest position');
  });

  t.test('readAll with dataOf: the types named keep their data, the others keep position and type', async (t) => {
    const store = await makeStore(t);
    const before = await store.head();
    const stream = fresh('data-of');
    await store.append(stream, [ev('kept', { k: 1 }), ev('skipped', { big: 'x'.repeat(10_000) })], 'no-stream');
    const all = (await store.readAll(before, 10_000)).filter((e) => e.streamId === stream);
    const some = (await store.readAll(before, 10_000, new Set(['kept']))).filter((e) => e.streamId === stream);
    t.strictSame(
      some.map((e) => [e.type, e.position, e.revision]),
      all.map((e) => [e.type, e.position, e.revision]),
      'every event is read, in the same order, at the same positions',
    );
    t.strictSame(some[0]!.data, { k: 1 }, 'a named type keeps its data');
    const skipped = some[1]!.data as Record<string, unknown>;
    t.ok(
      Object.keys(skipped).length === 0 || skipped.big === 'x'.repeat(10_000),
      'another type comes with empty data (or, on a store that does not filter, its own)',
    );
    if (store.backend === 'postgres') t.strictSame(skipped, {}, 'PostgreSQL leaves it out');
  });

  t.test('a live subscriber sees every event of many concurrent appenders once, in position order', async (t) => {
    const store = await makeStore(t);
    const start = await store.head();
    const seen: RecordedEvent[] = [];
    const appenders = 8;
    const perAppender = 40;
    const prefix = fresh('conc');
    const subscription = store.subscribeToAll(start, async (event) => {
      if (event.streamId.startsWith(prefix)) seen.push(event);
    });
    t.teardown(() => subscription.close());
    await Promise.all(
      Array.from({ length: appenders }, async (_, a) => {
        const stream = `${prefix}${a}`;
        for (let i = 0; i < perAppender; i++) {
          await store.append(stream, [ev('tick', { a, i })], i === 0 ? 'no-stream' : BigInt(i - 1));
        }
      }),
    );
    const total = appenders * perAppender;
    await until(() => seen.length >= total);
    await new Promise((r) => setTimeout(r, 100));
    t.equal(seen.length, total, 'no event skipped or repeated');
    t.equal(new Set(seen.map((e) => e.id)).size, total, 'each event once');
    t.ok(
      seen.every((e, i) => i === 0 || e.position > seen[i - 1]!.position),
      'delivered in position order',
    );
    for (let a = 0; a < appenders; a++) {
      const order = seen.filter((e) => e.streamId === `${prefix}${a}`).map((e) => (e.data as { i: number }).i);
      t.strictSame(
        order,
        Array.from({ length: perAppender }, (_, i) => i),
        `stream ${a} in revision order`,
      );
    }
  });

  t.test('a subscription resumes from a checkpoint without repeating or skipping', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('resume');
    const start = await store.head();
    await store.append(stream, [ev('n', { i: 0 }), ev('n', { i: 1 }), ev('n', { i: 2 })], 'no-stream');
    const first: RecordedEvent[] = [];
    const sub1 = store.subscribeToAll(start, async (event) => {
      if (event.streamId === stream) first.push(event);
    });
    await until(() => first.length >= 3);
    await sub1.close();
    t.equal(first.length, 3);
    const checkpoint = first[1]!.position;
    const second: RecordedEvent[] = [];
    const sub2 = store.subscribeToAll(checkpoint, async (event) => {
      if (event.streamId === stream) second.push(event);
    });
    t.teardown(() => sub2.close());
    await until(() => second.length >= 1);
    await store.append(stream, [ev('n', { i: 3 })], 2n);
    await until(() => second.length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    t.strictSame(
      second.map((e) => (e.data as { i: number }).i),
      [2, 3],
      'resumes after the checkpoint, then live events',
    );
  });

  // The projection runner's wake-up: it watches, and on each call reads what follows its checkpoint.
  t.test('watch wakes its caller after appends, and what follows the checkpoint is then readable', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('watch');
    const checkpoint = await store.head();
    let calls = 0;
    const stop = await store.watch(() => calls++);
    t.teardown(stop);
    const settledCalls = calls; // a spurious call at start is allowed
    const appended = await store.append(stream, [ev('w', { i: 0 }), ev('w', { i: 1 })], 'no-stream');
    await until(() => calls > settledCalls);
    t.ok(calls > settledCalls, 'the append woke the watcher');
    const read = (await store.readAll(checkpoint, 1000)).filter((e) => e.streamId === stream);
    t.strictSame(
      read.map((e) => (e.data as { i: number }).i),
      [0, 1],
      'the woken reader finds the appended events after its checkpoint, in order',
    );
    t.ok((await store.head()) >= appended.position, 'the head covers the append');
  });

  t.test('a stopped watch is not called again', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('unwatch');
    let calls = 0;
    const stop = await store.watch(() => calls++);
    await store.append(stream, [ev('w')], 'no-stream');
    await until(() => calls > 0);
    stop();
    await new Promise((r) => setTimeout(r, 200)); // a call already on its way may land
    const after = calls;
    await store.append(stream, [ev('w'), ev('w')], 0n);
    await new Promise((r) => setTimeout(r, 1_500));
    t.equal(calls, after, 'appends after the stop wake nobody');
  });

  t.test('two watchers on one store are both woken, and stopping one leaves the other', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('watchers');
    let first = 0;
    let second = 0;
    const stopFirst = await store.watch(() => first++);
    const stopSecond = await store.watch(() => second++);
    t.teardown(stopSecond);
    await store.append(stream, [ev('w')], 'no-stream');
    await until(() => first > 0 && second > 0);
    t.ok(first > 0 && second > 0, 'both woken');
    stopFirst();
    await new Promise((r) => setTimeout(r, 200));
    const [firstAfter, secondAfter] = [first, second];
    await store.append(stream, [ev('w')], 0n);
    await until(() => second > secondAfter);
    t.ok(second > secondAfter, 'the remaining watcher is still woken');
    t.equal(first, firstAfter, 'the stopped one is not');
  });

  t.test('a failing handler ends the subscription and reports the error', async (t) => {
    const store = await makeStore(t);
    const stream = fresh('fail');
    const start = await store.head();
    await store.append(stream, [ev('boom')], 'no-stream');
    const error = await new Promise<unknown>((resolve) => {
      const sub = store.subscribeToAll(
        start,
        async (event) => {
          if (event.streamId === stream) throw new Error('handler failed');
        },
        resolve,
      );
      t.teardown(() => sub.close());
    });
    t.match(error, { message: 'handler failed' });
  });
}
