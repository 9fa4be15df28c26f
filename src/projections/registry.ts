import { ledgerProjection } from './ledger/ledger.projection.ts';
import { marketplacesProjection } from './marketplaces/marketplaces.projection.ts';
import type { Projection } from './runner/projection.ts';

// Every projection and reactor, in the order the runner feeds them.
export const projections: readonly Projection[] = [marketplacesProjection, ledgerProjection];

export type ProjectionName = (typeof projections)[number]['name'];
