import type { Metrics } from '../system/metrics.ts';
import { RevisionConflict, type EventStore } from './port.ts';

// Decisions counted as they are appended (docs/decisions: one place whatever the path that decided them,
// the API, the estate reconciler or an ENFORCE re-vet; a read-model rebuild counts nothing twice).
const decisionOf: Readonly<Record<string, string>> = {
  'snapshot-approved': 'approved',
  'snapshot-rejected': 'rejected',
  'snapshot-revoked': 'revoked',
};

/**
 * The store every part of the gateway is handed: `store` itself, with each append timed
 * (gateway_eventstore_append_duration_seconds) and the snapshot decisions it carried counted.
 */
export function measuredEventStore(store: EventStore, metrics: Metrics): EventStore {
  return {
    backend: store.backend,
    async append(streamId, events, expected) {
      const end = metrics.append.startTimer();
      try {
        const result = await store.append(streamId, events, expected);
        end({ outcome: 'ok' });
        for (const event of events) {
          const decision = decisionOf[event.type];
          if (decision) metrics.decisions.inc({ decision });
        }
        return result;
      } catch (error) {
        end({ outcome: error instanceof RevisionConflict ? 'conflict' : 'error' });
        throw error;
      }
    },
    readStream: (streamId) => store.readStream(streamId),
    readAll: (after, limit, dataOf) => store.readAll(after, limit, dataOf),
    subscribeToAll: (after, handle, onError) => store.subscribeToAll(after, handle, onError),
    watch: (onAppend) => store.watch(onAppend),
    head: () => store.head(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
