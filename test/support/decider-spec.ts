import type { Decider, Decision } from '../../src/domain/kernel/decider.ts';

/** given(events).when(command): folds the history with evolve and returns decide's decision. */
export const spec = <S, C, E>(decider: Decider<S, C, E>) => ({
  given: (events: readonly E[]) => ({
    when: (command: C): Decision<E> => decider.decide(command, events.reduce(decider.evolve, decider.initialState())),
  }),
});

// The command metadata builder lives with the other builders; re-exported for the tests that import it from here.
export { meta } from './builders.ts';
