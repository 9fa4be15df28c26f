import type { DomainEventType } from '../../domain/events.ts';
import { dispatch } from '../runner/dispatch.ts';
import { reactor, type Projection } from '../runner/projection.ts';
import { outsideTransaction } from '../runner/outside-transaction.ts';
import type { MirrorSignal, MirrorWake } from '../../domain/mirror/mirror-signal.ts';

// What changes what is served (publication converged, the catalog revised): the mirror follows.
const servedChanges: ReadonlySet<string> = new Set<DomainEventType>([
  'snapshot-approved',
  'snapshot-revoked',
  'marketplace-removed',
  'catalog-rebuilt',
  'publication-repaired',
]);

/**
 * The mirror reactor (never rebuilt: docs/architecture.md, Principles 5). It acts on nothing itself: after a batch that
 * changed what is served (it runs after publication in the registry, so the published repositories already hold the
 * change), or that asks for a reconciliation, it wakes the leader's mirror duty, which pushes off the runner's path: a
 * mirror that is down never holds back a read model or what the facade serves.
 */
export const mirrorReactor = (signal: MirrorSignal | null): Projection => {
  const requests = dispatch<MirrorWake[]>({
    'mirror-reconcile-requested': (wakes, { data }) => {
      wakes.push({ trigger: 'api', requestId: data.requestId });
    },
  });
  return reactor({
    name: 'mirror',
    version: 1,
    eventTypes: new Set([...servedChanges, 'mirror-reconcile-requested']),
    async apply(_tx, events) {
      if (!signal) return;
      const wakes: MirrorWake[] = [];
      await requests(wakes, events);
      if (events.some((event) => servedChanges.has(event.type))) wakes.push({ trigger: 'change', requestId: null });
      // apply() runs in the runner's transaction: the pass it starts must use the pool on its own.
      for (const wake of wakes) outsideTransaction(() => signal.notify(wake));
    },
  });
};
