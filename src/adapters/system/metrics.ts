import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's metrics, exposed at /actuator/prometheus. One registry per gateway instance. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    // spec, Holdings check: nothing is appended to the ledger; a counter tagged by answered state is kept.
    holdings: new Counter({
      name: 'gateway_holdings_answers_total',
      help: 'Holdings check answers by state',
      labelNames: ['state'] as const,
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
