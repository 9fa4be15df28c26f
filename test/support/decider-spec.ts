import type { CommandMeta, Decider, Decision } from '../../src/domain/shared/decider.ts';

/** given(events).when(command): folds the history with evolve and returns decide's decision. */
export const spec = <S, C, E>(decider: Decider<S, C, E>) => ({
  given: (events: readonly E[]) => ({
    when: (command: C): Decision<E> => decider.decide(command, events.reduce(decider.evolve, decider.initialState())),
  }),
});

export const meta = (overrides: Partial<CommandMeta> = {}): CommandMeta => ({
  principal: 'alice',
  actorType: 'human',
  at: '2026-03-01T10:00:00.000Z',
  correlationId: 'corr-1',
  ...overrides,
});
