import { runCommand } from './run-command.ts';
import type { EventStore } from '../../adapters/eventstore/port.ts';
import type { CommandMeta, Decider, Decision } from '../../domain/kernel/decider.ts';
import type { ProjectionWaiter } from '../../projections/runner/wait-for.ts';
import { Rejected } from './rejected.ts';

export type CommandDeps = Readonly<{ store: EventStore; waiter: ProjectionWaiter; retries?: number }>;

/**
 * What every route calls: decide and append, wait until the named read models show the result
 * (also on a refusal that recorded events), then raise the refusal if there was one.
 */
export async function execute<
  S,
  C extends { type: string; meta: CommandMeta },
  E extends { type: string; data: unknown },
>(
  deps: CommandDeps,
  decider: Decider<S, C, E>,
  streamId: string,
  command: C,
  readModels?: readonly string[],
): Promise<Decision<E> & { outcome: 'accepted' }> {
  const { decision, position } = await runCommand(deps.store, decider, streamId, command, deps.retries);
  if (position !== null) await deps.waiter.waitFor(position, readModels);
  if (decision.outcome === 'refused') throw new Rejected(decision.rejection);
  return decision;
}
