// Event shapes for the benchmark, as the gateway appends them (src/domain/access/access.events.ts,
// src/domain/marketplace/marketplace.events.ts, stream names from src/domain/kernel/streams.ts).
// Deterministic: a seeded generator, so two runs append the same events.
import { randomUUID } from 'node:crypto';
import type { AccessEvent } from '../src/domain/access/access.events.ts';
import type { MarketplaceNameReserved, MarketplaceRegistered } from '../src/domain/marketplace/marketplace.events.ts';
import type { EventMetadata, ExpectedRevision, NewEvent } from '../src/adapters/eventstore/port.ts';
import { streams } from '../src/domain/kernel/streams.ts';

/** mulberry32: small, fast and good enough to pick event shapes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One append: the stream, its events and the revision the appender expects. */
export type PlannedAppend = Readonly<{ streamId: string; events: readonly NewEvent[]; expected: ExpectedRevision }>;

/** Tallies what was generated, to check the read models after the rebuild. */
export type Tally = {
  events: number;
  registered: number;
  infoRefs: number;
  uploadPacks: number;
  wants: number;
  reserved: number;
};
export const newTally = (): Tally => ({ events: 0, registered: 0, infoRefs: 0, uploadPacks: 0, wants: 0, reserved: 0 });
/** Rows the ledger projection writes for the tallied events (ledger.mapping.ts). */
export const expectedLedgerRows = (t: Tally): number => t.registered + t.infoRefs + t.wants;

// Marketplace ids are unique across every generator of a run (the marketplaces read model's key).
let nextMarketplaceId = 1;

const words = [
  'anthropic',
  'acme',
  'internal',
  'platform',
  'security',
  'data',
  'devtools',
  'research',
  'mobile',
  'infra',
];
const kinds = ['skills', 'plugins', 'agents', 'tools'];
const hex = (random: () => number, length: number): string => {
  let out = '';
  while (out.length < length)
    out += Math.floor(random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
};
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Share of appends that register a marketplace (each also reserves its name, as the decider does). */
const registrationShare = 0.01;

/**
 * Produces appends in the gateway's mix: about 1 % registrations (a name reservation then the
 * marketplace-registered event), the rest facade access events, half info-refs and half
 * upload-pack with 1–3 wants, each on the `access-<marketplace>` stream of a marketplace this
 * generator registered. Tracks the revision of every stream it writes, so appends expect exactly
 * the revision the stream is at: one generator per appender keeps the streams of concurrent
 * appenders disjoint.
 */
export class EventGenerator {
  private readonly random: () => number;
  private readonly revisions = new Map<string, bigint>();
  private readonly marketplaces: Array<{ id: number; name: string }> = [];
  private readonly principals: string[];
  private readonly queue: PlannedAppend[] = [];
  readonly tally: Tally = newTally();

  readonly label: string;
  private readonly clock: () => Date;
  constructor(label: string, seed: number, clock: () => Date = () => new Date()) {
    this.label = label;
    this.clock = clock;
    this.random = seededRandom(seed);
    this.principals = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? `ci-bot-${label}-${i}` : `user${i}.${label}@example.com`,
    );
  }

  private expected(streamId: string): ExpectedRevision {
    return this.revisions.get(streamId) ?? 'no-stream';
  }

  private advance(streamId: string, count: number): void {
    const current = this.revisions.get(streamId) ?? -1n;
    this.revisions.set(streamId, current + BigInt(count));
  }

  private metadata(facade: boolean, principal?: string): EventMetadata {
    const at = this.clock().toISOString();
    if (!facade)
      return { principal: principal ?? 'admin@example.com', actorType: 'human', correlationId: randomUUID(), at };
    const who = pick(this.random, this.principals);
    const machine = who.startsWith('ci-bot');
    return {
      principal: who,
      actorType: machine ? 'machine' : 'human',
      correlationId: randomUUID(),
      source: `10.${Math.floor(this.random() * 256)}.${Math.floor(this.random() * 256)}.${1 + Math.floor(this.random() * 254)}`,
      credentialId: 1 + Math.floor(this.random() * 500),
      at,
    };
  }

  private registration(): PlannedAppend[] {
    const id = nextMarketplaceId++;
    const name = `${pick(this.random, words)}-${pick(this.random, kinds)}-${id}`;
    const upstream = this.random() < 0.7;
    const registeredAt = this.clock().toISOString();
    const registeredBy = `admin${1 + Math.floor(this.random() * 5)}@example.com`;
    const reserved: MarketplaceNameReserved = { type: 'marketplace-name-reserved', data: { name, marketplaceId: id } };
    const registered: MarketplaceRegistered = {
      type: 'marketplace-registered',
      data: {
        marketplaceId: id,
        name,
        origin: upstream ? 'upstream' : 'hosted',
        url: upstream ? `https://github.com/${pick(this.random, words)}/${name}.git` : null,
        pushPolicy: upstream ? null : this.random() < 0.8 ? 'append-only' : 'allow-rewrite',
        registeredAt,
        registeredBy,
      },
    };
    this.marketplaces.push({ id, name });
    const nameStream = streams.marketplaceName(name);
    const stream = streams.marketplace(id);
    return [
      {
        streamId: nameStream,
        events: [{ ...reserved, metadata: this.metadata(false, registeredBy) }],
        expected: this.expected(nameStream),
      },
      {
        streamId: stream,
        events: [{ ...registered, metadata: this.metadata(false, registeredBy) }],
        expected: this.expected(stream),
      },
    ];
  }

  private accessEvent(marketplace: { id: number; name: string }): NewEvent {
    const credentialKind = this.random() < 0.75 ? 'pat' : 'idp';
    let event: AccessEvent;
    if (this.random() < 0.5) {
      event = {
        type: 'info-refs',
        data: {
          marketplaceId: marketplace.id,
          marketplace: marketplace.name,
          ref: 'refs/heads/main',
          sha: hex(this.random, 40),
          credentialKind,
        },
      };
    } else {
      const count = 1 + Math.floor(this.random() * 3);
      const wants = Array.from({ length: count }, (_, i) => ({
        sha: hex(this.random, 40),
        ref:
          i === 0
            ? 'refs/heads/main'
            : this.random() < 0.5
              ? `refs/tags/v${1 + Math.floor(this.random() * 9)}.${Math.floor(this.random() * 20)}.0`
              : null,
      }));
      event = {
        type: 'upload-pack',
        data: { marketplaceId: marketplace.id, marketplace: marketplace.name, wants, credentialKind },
      };
    }
    return { ...event, metadata: this.metadata(true) };
  }

  /** Marketplaces are looked at unevenly: a few popular ones get most of the traffic. */
  private target(): { id: number; name: string } {
    const n = this.marketplaces.length;
    const skewed = Math.floor(n * this.random() ** 2);
    return this.marketplaces[n - 1 - Math.min(skewed, n - 1)]!;
  }

  /** The next single-event append. */
  next(): PlannedAppend {
    const queued = this.queue.shift();
    if (queued) return this.commit(queued);
    if (this.marketplaces.length === 0 || this.random() < registrationShare) {
      const [first, ...rest] = this.registration();
      this.queue.push(...rest);
      return this.commit(first!);
    }
    const marketplace = this.target();
    const streamId = streams.access(marketplace.id);
    return this.commit({ streamId, events: [this.accessEvent(marketplace)], expected: this.expected(streamId) });
  }

  /** The next multi-event append of up to `size` access events on one stream (registrations stay single). */
  nextBatch(size: number): PlannedAppend {
    if (this.queue.length > 0 || this.marketplaces.length === 0 || this.random() < (registrationShare * size) / 10)
      return this.next();
    const marketplace = this.target();
    const streamId = streams.access(marketplace.id);
    const events = Array.from({ length: size }, () => this.accessEvent(marketplace));
    return this.commit({ streamId, events, expected: this.expected(streamId) });
  }

  private commit(append: PlannedAppend): PlannedAppend {
    // Expected revisions of queued appends were taken when planned; recompute at hand-out.
    const fresh = { ...append, expected: this.expected(append.streamId) };
    this.advance(append.streamId, append.events.length);
    for (const event of append.events) this.count(event);
    return fresh;
  }

  private count(event: NewEvent): void {
    this.tally.events++;
    if (event.type === 'marketplace-registered') this.tally.registered++;
    else if (event.type === 'marketplace-name-reserved') this.tally.reserved++;
    else if (event.type === 'info-refs') this.tally.infoRefs++;
    else if (event.type === 'upload-pack') {
      this.tally.uploadPacks++;
      this.tally.wants += (event.data as { wants: readonly unknown[] }).wants.length;
    }
  }
}
