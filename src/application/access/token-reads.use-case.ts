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

/**
 * The active token whose secret this is, for the facade and the revocation check: from the gateway's memory
 * of the tokens in use (token-memory.ts) once every event announced before is in it, read from the read
 * model the first time (then kept) and without a memory. A revoked or expired token is refused at once.
 */
export async function facadeTokenOf(
  deps: Pick<Ports, 'pool' | 'clock' | 'facadeMemory'>,
  secret: string,
): Promise<TokenRecord | null> {
  const memory = deps.facadeMemory;
  if (!memory) return activeTokenOf(deps, secret);
  await memory.current();
  const digest = digestOf(secret);
  const now = deps.clock.now();
  const kept = memory.tokens.recall(digest, now);
  if (kept !== undefined) return kept;
  const token = await activeTokenByDigest(deps.pool, digest, now.toISOString());
  return token && memory.tokens.remember(digest, token, now);
}

/** A person's own tokens (personal and session tokens), newest first. */
export const tokensOf = (deps: Pick<Ports, 'pool'>, principal: string): Promise<TokenRecord[]> =>
  tokensOwnedBy(deps.pool, principal);

/** Every machine credential, newest first. */
export const listMachineTokens = (deps: Pick<Ports, 'pool'>): Promise<TokenRecord[]> => machineCredentials(deps.pool);
