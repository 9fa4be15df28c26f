import type { DomainEvent } from '../../domain/events.ts';
import type { AppendResult, EventMetadata, EventStore, ExpectedRevision } from './port.ts';

/**
 * Appends facts decided outside a decider (fetches, reads, catalog revisions, repairs): every event is a
 * typed `DomainEvent` (build it with `fact`), the metadata one value or one per event.
 */
export function appendFacts(
  store: EventStore,
  streamId: string,
  events: readonly DomainEvent[],
  metadata: EventMetadata | ((event: DomainEvent) => EventMetadata),
  expected: ExpectedRevision,
): Promise<AppendResult> {
  const metadataFor = typeof metadata === 'function' ? metadata : () => metadata;
  return store.append(
    streamId,
    events.map((event) => ({ type: event.type, data: event.data, metadata: metadataFor(event) })),
    expected,
  );
}
