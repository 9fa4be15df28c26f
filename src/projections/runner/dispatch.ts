import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import { isDomainEventType, type DomainEventType, type EventOf } from '../../domain/events.ts';

/**
 * A stored event read as the domain event its type names, with its envelope (position, metadata,
 * recordedAt). The store's `data` is trusted as the type says: only typed facts are ever appended.
 */
export type Recorded<T extends DomainEventType = DomainEventType> = RecordedEvent & EventOf<T>;

/** The recorded event as a domain event, or null for a type this version does not know (written by a newer one). */
export const asDomainEvent = (recorded: RecordedEvent): Recorded | null =>
  isDomainEventType(recorded.type) ? (recorded as Recorded) : null;

// `unknown` so a handler may return the query it runs (`(tx, e) => tx.query(...)`); the result is awaited, not used.
type Handler<C, T extends DomainEventType> = (context: C, event: Recorded<T>) => Promise<unknown> | void;

/** What a projection does per event type; types left out are skipped. */
export type Handlers<C> = { readonly [T in DomainEventType]?: Handler<C, T> };

/**
 * One projection's event loop: each event in order goes to the handler of its type (awaited before the
 * next), with `context` (the runner's transaction, or a batch's own state). The event object itself is
 * handed over, so dispatching allocates nothing per event.
 */
const handledTypes = new WeakMap<object, ReadonlySet<string>>();

/** The event types a function made by dispatch() acts on; undefined for any other function. */
export const typesHandledBy = (apply: object): ReadonlySet<string> | undefined => handledTypes.get(apply);

export function dispatch<C>(handlers: Handlers<C>): (context: C, events: readonly RecordedEvent[]) => Promise<void> {
  // A Map, not the object: an event type such as 'constructor' must not find Object.prototype's.
  const byType = new Map<string, Handler<C, DomainEventType>>(
    Object.entries(handlers) as [DomainEventType, Handler<C, DomainEventType>][],
  );
  const dispatched = async (context: C, events: readonly RecordedEvent[]): Promise<void> => {
    for (const event of events) {
      const handler = byType.get(event.type);
      if (!handler) continue;
      const pending = handler(context, event as Recorded);
      if (pending) await pending;
    }
  };
  handledTypes.set(dispatched, new Set(byType.keys()));
  return dispatched;
}

/** What a projection's statement is. */
type Statement = Parameters<DatabaseTransactionConnection['query']>[0];

/**
 * The handler most read models' events have: one statement, built from the event's data, run in the runner's
 * transaction (`'role-revoked': statement((d) => sql.unsafe\`delete … where id = ${d.grantId}\`)`).
 */
export const statement =
  <T extends DomainEventType>(build: (data: EventOf<T>['data']) => Statement) =>
  (tx: DatabaseTransactionConnection, event: Recorded<T>): Promise<unknown> =>
    tx.query(build(event.data as EventOf<T>['data']));
