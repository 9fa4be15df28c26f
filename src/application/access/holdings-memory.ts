// The revocation check's read model in memory: per marketplace its name and whether it is live, per capture
// its state, revocation instant and whether it was ever revoked. It starts from the snapshots and
// marketplaces read models and follows the events those projections apply, with the same effect on these
// columns, so that it answers what capturesOfPairs would read.
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { Capture } from '../../domain/access/holdings.ts';
import type { DomainEventType, EventOf } from '../../domain/events.ts';
import type { HoldingsSource, IndexedCapture } from '../../projections/snapshots/holdings.queries.ts';

type Held = { -readonly [K in keyof IndexedCapture]: IndexedCapture[K] };

/** The database answers timestamps as ISO-8601 with milliseconds (pool.ts): the same form here. */
const instant = (value: string): string => new Date(value).toISOString();

export class HoldingsMemory {
  /** The events apply() reads the data of (every other one leaves this memory as it is). */
  static readonly eventTypes: ReadonlySet<string> = new Set<DomainEventType>([
    'marketplace-registered',
    'marketplace-removed',
    'snapshot-captured',
    'snapshot-approved',
    'snapshot-rejected',
    'snapshot-revoked',
    'snapshot-purged',
  ]);

  private readonly marketplaces = new Map<number, { name: string; live: boolean }>();
  private readonly captures = new Map<number, Held>();
  /** Marketplace ids by name: a removed name can be registered again. */
  private readonly idsByName = new Map<string, number[]>();
  /** Captures by marketplace id, then commit, oldest first. */
  private readonly byMarketplace = new Map<number, Map<string, Held[]>>();
  /** Events at or before these positions are in the rows loaded (per read model). */
  private marketplacesAt = 0n;
  private snapshotsAt = 0n;

  /** Starts again from the read models' rows (null: from nothing, every event to follow). */
  load(source: HoldingsSource | null): void {
    this.marketplaces.clear();
    this.captures.clear();
    this.idsByName.clear();
    this.byMarketplace.clear();
    this.marketplacesAt = source?.marketplacesAt ?? 0n;
    this.snapshotsAt = source?.snapshotsAt ?? 0n;
    for (const m of source?.marketplaces ?? []) this.registered(m.id, m.name, m.live);
    for (const c of source?.captures ?? []) this.captured({ ...c });
  }

  /** Every capture of a commit under a marketplace name, live or removed, as capturesOfPairs reads them. */
  capturesOf(name: string, sha: string): Capture[] {
    const found: Capture[] = [];
    for (const id of this.idsByName.get(name) ?? []) {
      const live = this.marketplaces.get(id)!.live;
      for (const c of this.byMarketplace.get(id)?.get(sha) ?? [])
        found.push({ state: c.state, revokedAt: c.revokedAt, wasRevoked: c.wasRevoked, live });
    }
    return found;
  }

  /** One event of the stream, in order: what the marketplaces and snapshots projections do to these columns. */
  apply(event: RecordedEvent): void {
    if (!HoldingsMemory.eventTypes.has(event.type)) return;
    if (event.position > this.marketplacesAt) this.applyMarketplace(event);
    if (event.position > this.snapshotsAt) this.applySnapshot(event);
  }

  private applyMarketplace(event: RecordedEvent): void {
    if (event.type === 'marketplace-registered') {
      const d = (event as unknown as EventOf<'marketplace-registered'>).data;
      this.registered(d.marketplaceId, d.name, true);
    } else if (event.type === 'marketplace-removed') {
      const d = (event as unknown as EventOf<'marketplace-removed'>).data;
      const marketplace = this.marketplaces.get(d.marketplaceId);
      if (marketplace) marketplace.live = false;
    }
  }

  private applySnapshot(event: RecordedEvent): void {
    switch (event.type) {
      case 'snapshot-captured': {
        const d = (event as unknown as EventOf<'snapshot-captured'>).data;
        const capture = { id: d.snapshotId, marketplaceId: d.marketplaceId, sha: d.sha, state: d.state };
        this.captured({ ...capture, revokedAt: null, wasRevoked: false });
        return;
      }
      case 'snapshot-approved':
        return this.update((event as unknown as EventOf<'snapshot-approved'>).data.snapshotId, (c) => {
          c.state = 'approved';
          c.revokedAt = null;
        });
      case 'snapshot-rejected':
        return this.update((event as unknown as EventOf<'snapshot-rejected'>).data.snapshotId, (c) => {
          c.state = 'rejected';
        });
      case 'snapshot-revoked': {
        const d = (event as unknown as EventOf<'snapshot-revoked'>).data;
        return this.update(d.snapshotId, (c) => {
          c.state = 'revoked';
          c.revokedAt = instant(d.revokedAt);
          c.wasRevoked = true;
        });
      }
      case 'snapshot-purged': {
        // A withdrawn snapshot's row stays (docs/retention.md); any other leaves the read model.
        const d = (event as unknown as EventOf<'snapshot-purged'>).data;
        if (!d.withdrawn) this.purged(d.snapshotId);
        return;
      }
    }
  }

  private registered(id: number, name: string, live: boolean): void {
    this.marketplaces.set(id, { name, live });
    const ids = this.idsByName.get(name) ?? [];
    if (!ids.includes(id)) this.idsByName.set(name, [...ids, id]);
  }

  private captured(capture: Held): void {
    this.purged(capture.id);
    this.captures.set(capture.id, capture);
    let commits = this.byMarketplace.get(capture.marketplaceId);
    if (!commits) this.byMarketplace.set(capture.marketplaceId, (commits = new Map()));
    commits.set(capture.sha, [...(commits.get(capture.sha) ?? []), capture]);
  }

  private update(id: number, change: (capture: Held) => void): void {
    const capture = this.captures.get(id);
    if (capture) change(capture);
  }

  private purged(id: number): void {
    const capture = this.captures.get(id);
    if (!capture) return;
    this.captures.delete(id);
    const commits = this.byMarketplace.get(capture.marketplaceId)!;
    const rest = (commits.get(capture.sha) ?? []).filter((c) => c.id !== id);
    if (rest.length > 0) commits.set(capture.sha, rest);
    else commits.delete(capture.sha);
  }
}
