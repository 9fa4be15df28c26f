// What the token surfaces and the credential checks read of the tokens read model.
import { digestOf } from '../../adapters/system/token-digests.ts';
import {
  activeTokenByDigest,
  machineCredentials,
  tokensOwnedBy,
  type TokenRecord,
} from '../../projections/tokens/tokens.queries.ts';
import type { Ports } from '../kernel/ports.ts';

export type { TokenRecord } from '../../projections/tokens/tokens.queries.ts';

/** The active token whose secret this is (a well-formed secret, checked by the caller), or null. */
export const activeTokenOf = (deps: Pick<Ports, 'pool' | 'clock'>, secret: string): Promise<TokenRecord | null> =>
  activeTokenByDigest(deps.pool, digestOf(secret), deps.clock.instant());

/** A person's own tokens (personal and session tokens), newest first. */
export const tokensOf = (deps: Pick<Ports, 'pool'>, principal: string): Promise<TokenRecord[]> =>
  tokensOwnedBy(deps.pool, principal);

/** Every machine credential, newest first. */
export const listMachineTokens = (deps: Pick<Ports, 'pool'>): Promise<TokenRecord[]> => machineCredentials(deps.pool);
