import { newTokenSecret, digestOf } from '../../adapters/system/token-digests.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { tokenDecider, type IssuePolicy } from '../../domain/token/token.decider.ts';
import type { TokenFields, TokenKind } from '../../domain/token/token.events.ts';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import { tokenById, type TokenRecord } from '../../projections/tokens/tokens.queries.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { execute } from '../kernel/execute.ts';
import type { Ports } from '../kernel/ports.ts';

const readModels = ['tokens', 'ledger'];

export type TokenPorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'ids' | 'catalog' | 'access'>;
/** A token as its read model has it, and the cleartext secret, which exists in this answer only. */
export type IssuedToken = Readonly<{ token: TokenRecord; secret: string }>;

/**
 * Scope validation against the registry (docs/access.md, Personal access tokens): the catalog name is a valid fetch
 * scope.
 */
async function issuePolicy(deps: Pick<Ports, 'pool' | 'catalog' | 'access'>): Promise<IssuePolicy> {
  const live = await liveMarketplaces(deps.pool);
  return {
    registered: [...live.map((m) => m.name), ...(deps.catalog.enabled ? [deps.catalog.name] : [])],
    hosted: live.filter((m) => m.origin === 'hosted').map((m) => m.name),
    maxTtlMs: deps.access.maxTtlMs,
    sessionTtlMs: deps.access.sessionTtlMs,
  };
}

async function reread(deps: Pick<Ports, 'pool'>, id: number): Promise<TokenRecord> {
  const token = await tokenById(deps.pool, id);
  if (!token) throw new Error(`token ${id} missing from its read model after its command`);
  return token;
}

/** Which tokens a caller may address: its own (asOwner), of these kinds. */
export type TokenScope = Readonly<{ asOwner: string | null; kinds: readonly TokenKind[] }>;

/** What a caller asks for: the token's fields as the events carry them. */
export type TokenRequest = TokenFields;

/** A new token id and secret; `command` turns them into the issuing command. Only the digest is stored. */
async function issued(
  deps: TokenPorts,
  command: (tokenId: number, digest: string) => Promise<Parameters<typeof tokenDecider.decide>[0]>,
): Promise<IssuedToken> {
  const tokenId = await deps.ids('token');
  const secret = newTokenSecret();
  await execute(deps, tokenDecider, streams.token(tokenId), await command(tokenId, digestOf(secret)), readModels);
  return { token: await reread(deps, tokenId), secret };
}

/** Issues a token; the cleartext is in this answer only. */
export function issueToken(deps: TokenPorts, meta: CommandMeta, wanted: TokenRequest): Promise<IssuedToken> {
  return issued(deps, async (tokenId, digest) => ({
    type: 'issue-token',
    data: { ...wanted, tokenId, digest, policy: await issuePolicy(deps) },
    meta,
  }));
}

/** Rotation: the old token is revoked before the new one is issued, with rotatedFrom set. */
export async function rotateToken(
  deps: TokenPorts,
  meta: CommandMeta,
  id: number,
  scope: TokenScope,
): Promise<IssuedToken> {
  const revoke = { type: 'revoke-token' as const, data: { ...scope, cause: 'rotated' as const }, meta };
  await execute(deps, tokenDecider, streams.token(id), revoke, readModels);
  const { kind, owner, principal, name, scopes, pushScopes, apiScopes, expiresAt } = await reread(deps, id);
  const carried = { kind, owner, principal, name, scopes, pushScopes, apiScopes, expiresAt };
  return issued(deps, async (tokenId, digest) => ({
    type: 'issue-rotated-token',
    data: { tokenId, digest, rotatedFrom: id, ...carried },
    meta,
  }));
}

export async function revokeToken(deps: TokenPorts, meta: CommandMeta, id: number, scope: TokenScope): Promise<void> {
  await execute(
    deps,
    tokenDecider,
    streams.token(id),
    { type: 'revoke-token', data: { ...scope, cause: 'deleted' }, meta },
    readModels,
  );
}
