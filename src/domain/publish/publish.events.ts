import type { PushPolicy } from '../marketplace/marketplace.events.ts';
import type { Event, Instant } from '../kernel/decider.ts';

/**
 * A push to a hosted marketplace's main was accepted (/publish/{name}). Both tips are recorded; `forced`
 * marks a push that rewrote history, which only `allow-rewrite` permits (docs/marketplaces.md, Hosted marketplaces).
 */
export type MarketplacePushed = Event<
  'marketplace-pushed',
  {
    marketplaceId: number;
    marketplace: string;
    ref: string;
    /** The tip the push replaced; null for the first push. */
    previousTip: string | null;
    newTip: string;
    forced: boolean;
    pushPolicy: PushPolicy;
    pushedAt: Instant;
  }
>;

export type PublishEvent = MarketplacePushed;
