import type { Event, Instant } from '../kernel/decider.ts';

/**
 * retention-evaluated, one per evaluation pass (scheduled: principal `system`; on demand: the
 * admin), with what it selected, what the min-idle veto kept and how many soft deletions it made.
 */
export type RetentionEvaluated = Event<
  'retention-evaluated',
  {
    /** The marketplace the pass was limited to (?marketplace=), or null for every one. */
    marketplace: string | null;
    trigger: 'scheduled' | 'on-demand';
    selected: number;
    acted: number;
    vetoed: number;
    heldTooLong: number;
    superseded: number;
    evaluatedAt: Instant;
  }
>;

export type RetentionEvent = RetentionEvaluated;

/** The ledger entry's detail of a pass: its counts and trigger. */
export const retentionDetail = (d: RetentionEvaluated['data']): string =>
  `selected=${d.selected} acted=${d.acted} vetoed=${d.vetoed} held-too-long=${d.heldTooLong} ` +
  `superseded=${d.superseded}; trigger=${d.trigger}`;
