import { randomUUID } from 'node:crypto';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { Ports } from './ports.ts';

/** What the gateway does by itself (schedules, sweeps, dispatch): a system act under `principal`, now, with a fresh correlation id. */
export const systemMeta = (deps: Pick<Ports, 'clock'>, principal: string): CommandMeta => ({
  principal,
  actorType: 'system',
  at: deps.clock.instant(),
  correlationId: randomUUID(),
});
