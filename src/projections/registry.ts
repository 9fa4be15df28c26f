import { ledgerProjection } from './ledger/ledger.projection.ts';
import { marketplacesProjection } from './marketplaces/marketplaces.projection.ts';
import { rolesProjection } from './roles/roles.projection.ts';
import { tokensProjection } from './tokens/tokens.projection.ts';
import type { Projection } from './runner/projection.ts';

// Every projection and reactor, in the order the runner feeds them.
export const projections: readonly Projection[] = [marketplacesProjection, tokensProjection, rolesProjection, ledgerProjection];

export type ProjectionName = (typeof projections)[number]['name'];
