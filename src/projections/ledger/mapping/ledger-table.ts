import type { DomainEvent } from '../../../domain/events.ts';
import type { Fields } from '../ledger.fields.ts';

/** A table's value for an event type that is no act on the ledger: the event maps to no entry. */
export const noLedgerEntry = null;

/**
 * How one concept's events map to the ledger: for every event type of the union `E`, either a function from the
 * event to what each of its entries holds beyond its metadata (none, one, or several entries), or `noLedgerEntry`.
 * No key is optional, so a table that leaves out an event type of its union does not compile.
 */
export type LedgerTable<E extends DomainEvent> = {
  readonly [T in E['type']]: ((event: Extract<E, { type: T }>) => Fields[]) | typeof noLedgerEntry;
};

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
