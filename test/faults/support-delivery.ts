// The delivery invariants of a fault run (delivery is at least once: a gateway killed mid-send sends again
// after restart, never zero times; a sink receives every ledger entry exactly in order across batches, none
// missing, duplicates allowed and de-duplicated on entry id), checked once after the last
// trial, when what is owed has drained: (a) every ledger entry of an outbound kind reached the subscriber,
// with matching data, under one webhook-id; (b) the sink's accepted batches, de-duplicated on entry id, are
// the ledger's entries 1..N in order, each batch contiguous and in order; (c) no delivery ended `failed`
// unless its receiver refused it max-attempts times. Duplicates are counted for the summary.
import { readLedger, type LedgerEntry } from './support-invariants.ts';
import { maxAttempts, sinkBatchSize, type Arrival, type DeliveryWatch, type Receiver } from './support-receivers.ts';
import type { Session } from './support.ts';

const drainLimitMs = 60_000;

const accepted = (a: Arrival) => a.status >= 200 && a.status < 300 && a.answered();
// A refusal the sender may not have read (the fault struck as it waited) does not count towards max-attempts.
const refused = (a: Arrival) => !(a.status >= 200 && a.status < 300) && a.answered() && !a.struck;

/** How often the receiver answered each webhook-id with a refusal. */
const refusals = (receiver: Receiver) => {
  const counts = new Map<string, number>();
  for (const a of receiver.arrivals.filter(refused)) counts.set(a.webhookId, (counts.get(a.webhookId) ?? 0) + 1);
  return counts;
};

type Drained = Readonly<{ drained: boolean; waitedMs: number; state: string }>;

/**
 * Waits until nothing is owed: no pending delivery, the sink's cursor at the ledger head (behind 0) twice
 * in a row at the same head, and no request in flight to either receiver.
 */
async function drain(api: Session, watch: DeliveryWatch): Promise<Drained> {
  const started = Date.now();
  let state = '';
  let lastHead = -1;
  for (;;) {
    const sinks = await api.get('/api/v1/audit/sinks');
    const pending = await api.get('/api/v1/webhooks/deliveries?state=pending&limit=100');
    const sink = (sinks.body as any[] | null)?.find((s) => s.id === watch.sinkId);
    const owed = pending.body?.deliveries?.length ?? -1;
    state =
      `${owed} pending deliveries; sink cursor ${sink?.cursorPosition}, ledger head ${sink?.ledgerHead}, ` +
      `behind ${sink?.behind}; in flight: ${watch.hooks.inFlight} webhooks, ${watch.sink.inFlight} batches`;
    const quiet =
      sinks.status === 200 &&
      pending.status === 200 &&
      owed === 0 &&
      sink?.behind === 0 &&
      sink.cursorPosition === sink.ledgerHead &&
      watch.hooks.inFlight === 0 &&
      watch.sink.inFlight === 0;
    if (quiet && sink.ledgerHead === lastHead) return { drained: true, waitedMs: Date.now() - started, state };
    lastHead = quiet ? sink.ledgerHead : -1;
    if (Date.now() - started > drainLimitMs) return { drained: false, waitedMs: Date.now() - started, state };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const snapshotIn = (detail: string | null) => /^snapshot (\d+)/.exec(detail ?? '')?.[1];

/**
 * What a ledger entry of an outbound kind shows of its event (src/domain/webhook/outbound.ts maps the events
 * to kinds, src/projections/ledger/ledger.mapping.ts to entries), as `<kind>|<fields>`; null for other entries.
 */
export function entryKey(e: LedgerEntry): string | null {
  const where = `${e.marketplaceId}|${e.sha}`;
  switch (e.event) {
    case 'marketplace-registered':
      return `marketplace.registered|${e.marketplaceId}|${e.marketplace}`;
    case 'marketplace-removed':
      return `marketplace.removed|${e.marketplaceId}|${e.marketplace}|${/^withdrew (\d+) /.exec(e.detail ?? '')?.[1]}`;
    case 'snapshot-captured': {
      const state = /^snapshot \d+ (held|rejected)/.exec(e.detail ?? '')?.[1];
      return `marketplace.snapshot.captured|${snapshotIn(e.detail)}|${where}|${state}`;
    }
    case 'snapshot-approved':
      return `marketplace.snapshot.approved|${snapshotIn(e.detail)}|${where}`;
    case 'snapshot-rejected':
      return `marketplace.snapshot.rejected|${snapshotIn(e.detail)}|${where}`;
    case 'snapshot-revoked': {
      const reason = /^snapshot \d+: (.*)$/s.exec(e.detail ?? '')?.[1];
      return `marketplace.snapshot.revoked|${snapshotIn(e.detail)}|${where}|${reason}`;
    }
    case 'ingest-failed':
      return `marketplace.ingest_failed|${e.marketplaceId}|${e.detail}`;
    case 'catalog-rebuilt':
      return `catalog.rebuilt|${e.marketplace}|${e.sha}|${/trigger=(\S+)$/.exec(e.detail ?? '')?.[1]}`;
    default:
      return null;
  }
}

/** The same fields read from a delivery's body `{type, data}`. */
export function payloadKey(type: string, d: any): string {
  const where = `${d.marketplaceId}|${d.sha}`;
  switch (type) {
    case 'marketplace.registered':
      return `${type}|${d.marketplaceId}|${d.name}`;
    case 'marketplace.removed':
      return `${type}|${d.marketplaceId}|${d.name}|${d.withdrawnSnapshotIds?.length}`;
    case 'marketplace.snapshot.captured':
      return `${type}|${d.snapshotId}|${where}|${d.state}`;
    case 'marketplace.snapshot.approved':
    case 'marketplace.snapshot.rejected':
      return `${type}|${d.snapshotId}|${where}`;
    case 'marketplace.snapshot.revoked':
      return `${type}|${d.snapshotId}|${where}|${d.reason}`;
    case 'marketplace.ingest_failed':
      return `${type}|${d.marketplaceId}|${d.reason}; root cause: ${d.rootCause}; next step: ${d.nextStep}`;
    case 'catalog.rebuilt':
      return `${type}|${d.catalog}|${d.sha}|${d.trigger}`;
    default:
      return `${type}|${JSON.stringify(d)}`;
  }
}

const tally = (keys: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
};

/** One body per webhook-id, whatever the number of arrivals; a second body for the same id is a violation. */
function bodiesById(receiver: Receiver, problems: string[]): Map<string, Arrival> {
  const byId = new Map<string, Arrival>();
  for (const arrival of receiver.arrivals) {
    const first = byId.get(arrival.webhookId);
    if (!first) byId.set(arrival.webhookId, arrival);
    else if (first.body !== arrival.body)
      problems.push(`${receiver.name}: webhook-id ${arrival.webhookId} arrived with two different bodies`);
  }
  return byId;
}

/** (a) Every outbound ledger entry after the subscriber's creation reached it, once per entry. */
function webhooksComplete(watch: DeliveryWatch, entries: readonly LedgerEntry[], problems: string[]) {
  const created = entries.find(
    (e) => e.event === 'webhook-subscriber-created' && (e.detail ?? '').includes(watch.hooks.url),
  );
  if (!created) return void problems.push('the subscriber has no webhook-subscriber-created entry on the ledger');
  const owed = tally(entries.filter((e) => e.id > created.id).flatMap((e) => entryKey(e) ?? []));
  const refusedTimes = refusals(watch.hooks);
  const byId = bodiesById(watch.hooks, problems);
  const got = new Map<string, string[]>();
  for (const [id, arrival] of byId) {
    const done = watch.hooks.arrivals.some((a) => a.webhookId === id && accepted(a));
    if (!done && (refusedTimes.get(id) ?? 0) < maxAttempts) continue; // (c) reports it
    if (arrival.payload === null) continue; // unverified, reported as such
    const key = payloadKey(arrival.payload.type, arrival.payload.data);
    got.set(key, [...(got.get(key) ?? []), id]);
  }
  for (const [key, count] of owed) {
    const ids = got.get(key) ?? [];
    if (ids.length < count) problems.push(`${count} ledger entries owe ${key}; ${ids.length} delivered`);
  }
  for (const [key, ids] of got) {
    if (ids.length > (owed.get(key) ?? 0))
      problems.push(`${key} was delivered under webhook-ids ${ids.join(', ')}; the ledger has ${owed.get(key) ?? 0}`);
  }
  return owed;
}

/** The export, NDJSON lines by entry id, paged by `after`. */
async function readExport(api: Session): Promise<Map<number, string>> {
  const lines = new Map<number, string>();
  let after = 0;
  for (;;) {
    const page = await api.get(`/api/v1/audit/export?after=${after}&limit=10000`);
    if (page.status !== 200) throw new Error(`GET /api/v1/audit/export answered ${page.status}: ${page.text}`);
    const rows = page.text.split('\n').filter(Boolean);
    if (rows.length === 0) return lines;
    for (const row of rows) lines.set(JSON.parse(row).id, JSON.stringify(JSON.parse(row)));
    after = JSON.parse(rows.at(-1)!).id;
  }
}

type SinkFigures = { batches: number; entries: number; again: number };

/** (b) The sink's accepted batches: each contiguous and in order; together the ledger 1..N in order. */
function sinkInOrder(watch: DeliveryWatch, exported: ReadonlyMap<number, string>, problems: string[]): SinkFigures {
  const bodies = bodiesById(watch.sink, problems);
  for (const arrival of bodies.values()) {
    const p = arrival.payload;
    if (p === null) continue;
    const ids: number[] = (p.data?.entries ?? []).map((e: any) => e.id);
    const contiguous = ids.every((id, i) => id === p.data.from + 1 + i) && p.data.to === ids.at(-1);
    if (p.type !== 'audit.batch' || p.data.sink !== watch.sinkName || ids.length === 0 || !contiguous)
      problems.push(`sink batch ${arrival.webhookId} is not a contiguous audit.batch: ${arrival.body.slice(0, 300)}`);
    if (ids.length > sinkBatchSize) problems.push(`sink batch ${arrival.webhookId} holds ${ids.length} entries`);
  }
  const order: number[] = [];
  const seen = new Map<number, string>();
  let again = 0;
  const taken = watch.sink.arrivals.filter((a) => accepted(a) && a.payload !== null);
  for (const entry of taken.flatMap((a) => a.payload.data.entries as any[])) {
    const line = JSON.stringify(entry);
    const before = seen.get(entry.id);
    if (before === undefined) {
      seen.set(entry.id, line);
      order.push(entry.id);
    } else {
      again += 1;
      if (before !== line) problems.push(`sink entry ${entry.id} arrived twice with different content`);
    }
  }
  const head = Math.max(0, ...exported.keys());
  const firstWrong = order.findIndex((id, i) => id !== i + 1);
  if (firstWrong >= 0)
    problems.push(`the sink's entry ${firstWrong + 1} (de-duplicated) is ledger id ${order[firstWrong]}`);
  if (order.length !== head)
    problems.push(`the sink holds ${order.length} distinct entries; the ledger head is ${head}`);
  if (exported.size !== head) problems.push(`the export holds ${exported.size} entries up to id ${head}`);
  const differs = order.find((id) => exported.has(id) && exported.get(id) !== seen.get(id));
  if (differs !== undefined) problems.push(`sink entry ${differs} differs from the export: ${seen.get(differs)}`);
  return { batches: new Set(taken.map((a) => a.webhookId)).size, entries: order.length, again };
}

/** (c) A delivery ends failed only after its receiver refused it max-attempts times. */
async function failedOnlyWhenRefused(api: Session, watch: DeliveryWatch, problems: string[]): Promise<number> {
  let before = '';
  let failed = 0;
  for (;;) {
    const page = await api.get(`/api/v1/webhooks/deliveries?state=failed&limit=100${before}`);
    if (page.status !== 200) {
      problems.push(`GET /api/v1/webhooks/deliveries?state=failed answered ${page.status}: ${page.text}`);
      return failed;
    }
    for (const d of page.body.deliveries as any[]) {
      failed += 1;
      const receiver = d.sinkId === null ? watch.hooks : watch.sink;
      const times = refusals(receiver).get(String(d.id)) ?? 0;
      if (times < maxAttempts)
        problems.push(
          `delivery ${d.id} (${d.event}) ended failed after ${d.attempts} attempts (${d.lastStatus ?? d.lastError}); ` +
            `its receiver refused it ${times} times, max-attempts is ${maxAttempts}`,
        );
    }
    if (page.body.nextBefore === null || page.body.nextBefore === undefined) return failed;
    before = `&before=${page.body.nextBefore}`;
  }
}

/**
 * Sends the fault struck while their answer was held: each must arrive again (the same webhook-id) when the
 * fault took the sender down with the answer unread (a gateway killed mid-send sends again after restart).
 */
function struckSends(watch: DeliveryWatch, mustResend: boolean, problems: string[]) {
  const all = [...watch.hooks.arrivals, ...watch.sink.arrivals];
  const struck = all.filter((a) => a.struck);
  const again = struck.filter((s) => all.some((a) => a.webhookId === s.webhookId && a.nth > s.nth));
  if (mustResend)
    for (const s of struck.filter((x) => !again.includes(x)))
      problems.push(`webhook-id ${s.webhookId}, struck mid-send (arrival ${s.nth}), never arrived again`);
  const { total, midSend } = watch.strikes;
  return (
    `${midSend} of ${total} faults struck with a send in flight, ${struck.length} of them held mid-send by ` +
    `the receiver (${again.length} of those sends came again)`
  );
}

/** Arrivals of a webhook-id after one of them was accepted: the duplicates at-least-once allows. */
const duplicates = (receiver: Receiver) => {
  const done = new Set<string>();
  let count = 0;
  for (const a of receiver.arrivals) {
    if (done.has(a.webhookId)) count += 1;
    if (accepted(a)) done.add(a.webhookId);
  }
  return count;
};

/**
 * After the last trial: waits for the deliveries to drain, then (a), (b), (c); violations and a summary clause.
 * The gateway may still append on its own after a drain (a debounced catalog rebuild), so a check that finds
 * something owed drains and looks again, twice at most, before it reports.
 */
export async function deliveryInvariants(
  api: Session,
  watch: DeliveryWatch,
  mustResend: boolean,
): Promise<{ violations: string[]; report: string }> {
  const started = Date.now();
  let problems: string[] = [];
  let struck = '';
  let figures = { owed: 0, sink: { batches: 0, entries: 0, again: 0 }, failed: 0, drainedMs: 0 };
  for (let look = 1; look <= 3; look++) {
    problems = [];
    const drained = await drain(api, watch);
    if (!drained.drained) problems.push(`deliveries did not drain within ${drainLimitMs} ms: ${drained.state}`);
    problems.push(...watch.hooks.unverified, ...watch.sink.unverified);
    const { entries } = await readLedger(api);
    const owed = webhooksComplete(watch, entries, problems);
    const sink = sinkInOrder(watch, await readExport(api), problems);
    const failed = await failedOnlyWhenRefused(api, watch, problems);
    struck = struckSends(watch, mustResend, problems);
    const total = [...(owed?.values() ?? [])].reduce((a, b) => a + b, 0);
    figures = { owed: total, sink, failed, drainedMs: figures.drainedMs + drained.waitedMs };
    if (problems.length === 0 || !drained.drained) break;
  }
  const hooks = watch.hooks.arrivals;
  const report =
    `delivery: drained in ${figures.drainedMs} ms, checked in ${Date.now() - started} ms; ` +
    `${figures.owed} outbound ledger entries, ${hooks.length} webhook arrivals ` +
    `(${new Set(hooks.map((a) => a.webhookId)).size} webhook-ids, ${hooks.filter(refused).length} refused by ` +
    `the receiver), ${duplicates(watch.hooks)} duplicates after a 2xx; sink: ${figures.sink.entries} entries ` +
    `in ${figures.sink.batches} accepted batches (${watch.sink.arrivals.length} arrivals), ${figures.sink.again} ` +
    `entries received again, ${duplicates(watch.sink)} batch duplicates after a 2xx; ${struck}; ` +
    `${figures.failed} deliveries failed`;
  return { violations: problems, report };
}
