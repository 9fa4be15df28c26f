// What leaves the gateway under faults: one webhook
// subscriber for every event kind and one audit sink, registered when a fault run starts, each pointing at a
// loopback receiver in the test process. The receivers sometimes answer 500 or answer slowly, decided per
// webhook-id and arrival from the run's seed (so a run replays), verify every message with the
// standardwebhooks package as a real receiver would, and can be armed to strike the fault while a send is
// in flight (the answer is held until the fault has struck). support-delivery.ts checks what arrived.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Test } from 'tap';
import { isSubscribableKind } from '../../src/domain/webhook/event-kinds.ts';
import { random, type Session } from './support.ts';

/** Short delivery settings for the fault runs (docs/configuration.md, gateway.webhooks.* and audit-export.*). */
export const maxAttempts = 10;
export const sinkBatchSize = 8;
export const deliveryEnv: Record<string, string> = {
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
  GATEWAY_WEBHOOKS_BASE_BACKOFF: '50ms',
  GATEWAY_WEBHOOKS_MAX_BACKOFF: '400ms',
  GATEWAY_WEBHOOKS_MAX_ATTEMPTS: String(maxAttempts),
  GATEWAY_WEBHOOKS_TIMEOUT: '2s',
  GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
  GATEWAY_AUDIT_EXPORT_BATCH_SIZE: String(sinkBatchSize),
  // gateway.audit-export.lag stays 0s (support.ts): the strictest setting for the order of what a sink gets.
};

/** One request as the receiver saw it. */
export type Arrival = Readonly<{
  webhookId: string;
  /** 1 for the first arrival of this webhook-id. */
  nth: number;
  /** The status the receiver chose. */
  status: number;
  /** The answer was written whole (false: the connection went first, e.g. the gateway was killed). */
  answered: () => boolean;
  body: string;
  /** The verified payload; null when verification failed (a violation, in `unverified`). */
  payload: any;
  /** The fault struck while this send waited for its answer (the receiver held it). */
  struck: boolean;
}>;

export type Receiver = {
  readonly name: string;
  readonly url: string;
  readonly arrivals: Arrival[];
  /** Messages whose signature, id or timestamp did not verify. */
  readonly unverified: string[];
  inFlight: number;
  secret: string | null;
};

/** The receiver's answer to the nth arrival of a webhook-id: refused (500) now and then, slow now and then. */
function behaviour(seed: number, salt: string, refuseRate: number, webhookId: string, nth: number) {
  const digest = createHash('sha256').update(`${seed}|${salt}|${webhookId}|${nth}`).digest();
  const rng = random(digest.readUInt32BE(0));
  const status = rng.next() < refuseRate ? 500 : 204;
  const delayMs = rng.next() < 0.3 ? rng.int(400) : 0;
  return { status, delayMs };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Strike = () => Promise<void>;

async function serveOne(
  receiver: Receiver,
  how: (webhookId: string, nth: number) => { status: number; delayMs: number },
  takeStrike: () => Strike | null,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) {
  const webhookId = String(request.headers['webhook-id'] ?? '');
  const nth = receiver.arrivals.filter((a) => a.webhookId === webhookId).length + 1;
  const { status, delayMs } = how(webhookId, nth);
  const verify = (): any => {
    try {
      return new Webhook(receiver.secret!).verify(body, request.headers as Record<string, string>);
    } catch (error) {
      receiver.unverified.push(`${receiver.name}: webhook-id ${webhookId} did not verify: ${String(error)}`);
      return null;
    }
  };
  const arrival: Arrival = {
    webhookId,
    nth,
    status,
    answered: () => response.writableFinished,
    body,
    // The secret is known once the registration answered; a message cannot be older than that by much.
    payload: receiver.secret === null ? null : verify(),
    struck: false,
  };
  receiver.arrivals.push(arrival);
  if (receiver.secret === null) {
    for (let waited = 0; receiver.secret === null && waited < 5000; waited += 20) await sleep(20);
    (arrival as { payload: any }).payload = verify();
  }
  const strike = takeStrike();
  if (strike) {
    (arrival as { struck: boolean }).struck = true;
    await strike().catch(() => undefined); // the trial loop awaits the same strike and reports its failure
  }
  if (delayMs > 0) await sleep(delayMs);
  response.statusCode = status;
  response.end();
}

async function startReceiver(
  t: Test,
  name: string,
  how: (webhookId: string, nth: number) => { status: number; delayMs: number },
  takeStrike: () => Strike | null,
): Promise<Receiver> {
  const receiver: Receiver = {
    name,
    url: '',
    arrivals: [],
    unverified: [],
    inFlight: 0,
    secret: null,
  };
  const server = createServer((request, response) => {
    receiver.inFlight += 1;
    response.once('close', () => (receiver.inFlight -= 1));
    response.on('error', () => undefined);
    request.on('error', () => undefined);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void serveOne(receiver, how, takeStrike, request, response, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`;
  return receiver;
}

export type DeliveryWatch = Readonly<{
  hooks: Receiver;
  sink: Receiver;
  subscriberId: number;
  sinkId: number;
  sinkName: string;
  /** The next send to either receiver strikes the fault first (until disarmed). */
  arm(strike: Strike): void;
  disarm(): void;
  /** Called as each fault strikes: counts the faults, and those that struck with a send in flight. */
  noteStrike(): void;
  strikes: Readonly<{ total: number; midSend: number }>;
}>;

/** Starts both receivers and registers a subscriber for every subscribable kind and a sink, through the API. */
export async function startDeliveryWatch(t: Test, api: Session, seed: number): Promise<DeliveryWatch> {
  let armed: Strike | null = null;
  const takeStrike = () => {
    const strike = armed;
    armed = null;
    return strike;
  };
  const hooks = await startReceiver(t, 'hooks', (id, nth) => behaviour(seed, 'hooks', 0.15, id, nth), takeStrike);
  const sink = await startReceiver(t, 'sink', (id, nth) => behaviour(seed, 'sink', 0.1, id, nth), takeStrike);

  const listed = await api.get('/api/v1/webhooks/events');
  if (listed.status !== 200) throw new Error(`GET /api/v1/webhooks/events answered ${listed.status}: ${listed.text}`);
  const events = (listed.body as Array<{ kind: string }>).map((k) => k.kind).filter(isSubscribableKind);
  const subscriber = await api.post('/api/v1/webhooks', { url: hooks.url, events, description: 'fault suite' });
  if (subscriber.status !== 201) throw new Error(`POST /api/v1/webhooks answered ${subscriber.status}`);
  hooks.secret = subscriber.body.secret;
  const sinkName = 'fault-sink';
  const created = await api.post('/api/v1/audit/sinks', { name: sinkName, url: sink.url });
  if (created.status !== 201) throw new Error(`POST /api/v1/audit/sinks answered ${created.status}`);
  sink.secret = created.body.secret;
  const strikes = { total: 0, midSend: 0 };
  return {
    hooks,
    sink,
    subscriberId: subscriber.body.id,
    sinkId: created.body.id,
    sinkName,
    arm: (strike) => (armed = strike),
    disarm: () => (armed = null),
    noteStrike: () => {
      strikes.total += 1;
      if (hooks.inFlight + sink.inFlight > 0) strikes.midSend += 1;
    },
    strikes,
  };
}
