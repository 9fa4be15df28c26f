import type { PushPolicy } from '../marketplace/marketplace.events.ts';
import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { PublishEvent } from './publish.events.ts';

/**
 * Records a push git has applied to the quarantine's main. `fastForward` is read from the repository
 * (the previous tip is an ancestor of the new one). The handler undoes the ref update when this is refused.
 */
export type RecordPush = Command<
  'record-push',
  {
    marketplaceId: number;
    marketplace: string;
    pushPolicy: PushPolicy;
    ref: string;
    previousTip: string | null;
    newTip: string;
    fastForward: boolean;
  }
>;
export type PublishCommand = RecordPush;

/** The tip the last recorded push left on main. */
export type PublishState = Readonly<{ tip: string | null }>;

export const publishDecider: Decider<PublishState, PublishCommand, PublishEvent> = {
  initialState: () => ({ tip: null }),
  evolve(_state, event) {
    switch (event.type) {
      case 'marketplace-pushed':
        return { tip: event.data.newTip };
    }
  },
  decide(command) {
    const { data, meta } = command;
    // append-only (the default) refuses non-fast-forward pushes. git refuses
    // them first (receive.denyNonFastForwards); this keeps a rewrite off the ledger of such a marketplace
    // whatever happened below.
    if (!data.fastForward && data.pushPolicy === 'append-only') {
      return refuse({
        code: 'conflict',
        detail: `${data.marketplace} is append-only: a push that rewrites history (${data.previousTip ?? 'none'} is not an ancestor of ${data.newTip}) is refused`,
      });
    }
    return accept({
      type: 'marketplace-pushed',
      data: {
        marketplaceId: data.marketplaceId,
        marketplace: data.marketplace,
        ref: data.ref,
        previousTip: data.previousTip,
        newTip: data.newTip,
        forced: !data.fastForward,
        pushPolicy: data.pushPolicy,
        pushedAt: meta.at,
      },
    });
  },
};
