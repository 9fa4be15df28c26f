import { newTokenSecret, digestOf } from '../adapters/system/token-digests.ts';
import { streams } from '../domain/shared/streams.ts';
import { tokenDecider, type IssuePolicy } from '../domain/token/token.decider.ts';
import type { TokenFields, TokenKind } from '../domain/token/token.events.ts';
import { liveMarketplaces } from '../projections/marketplaces/marketplaces.queries.ts';
import { tokenById, type TokenRecord } from '../projections/tokens/tokens.queries.ts';
import type { CommandMeta } from '../domain/shared/decider.ts';
import { execute } from './execute.ts';
import type { Ports } from './ports.ts';
import { reject } from './rejected.ts';

const readModels = ['tokens', 'ledger'];

export type TokenPorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'ids' | 'catalog' | 'access'>;
/** A token as its read model has it, and the cleartext secret, which exists in this answer only. */
export type IssuedToken = Readonly<{ token: TokenRecord; secret: string }>;

/** Scope validation against the registry (spec, Tokens rules 1 and 2): the catalog name is a valid fetch scope. */
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

/** Issues a token; the cleartext is in this answer only, and only its digest is stored. */
export async function issueToken(deps: TokenPorts, meta: CommandMeta, wanted: TokenRequest): Promise<IssuedToken> {
  const tokenId = await deps.ids('token');
  const secret = newTokenSecret();
  await execute(
    deps,
    tokenDecider,
    streams.token(tokenId),
    {
      type: 'issue-token',
      data: { ...wanted, tokenId, digest: digestOf(secret), policy: await issuePolicy(deps) },
      meta,
    },
    readModels,
  );
  return { token: await reread(deps, tokenId), secret };
}

/** spec, Tokens: the old token is revoked before the new one is issued, with rotatedFrom set. */
export async function rotateToken(
  deps: TokenPorts,
  meta: CommandMeta,
  id: number,
  scope: TokenScope,
): Promise<IssuedToken> {
  await execute(
    deps,
    tokenDecider,
    streams.token(id),
    { type: 'revoke-token', data: { ...scope, cause: 'rotated' }, meta },
    readModels,
  );
  const old = await reread(deps, id);
  const tokenId = await deps.ids('token');
  const secret = newTokenSecret();
  await execute(
    deps,
    tokenDecider,
    streams.token(tokenId),
    {
      type: 'issue-rotated-token',
      data: {
        tokenId,
        digest: digestOf(secret),
        rotatedFrom: id,
        kind: old.kind,
        owner: old.owner,
        principal: old.principal,
        name: old.name,
        scopes: old.scopes,
        pushScopes: old.pushScopes,
        apiScopes: old.apiScopes,
        expiresAt: old.expiresAt,
      },
      meta,
    },
    readModels,
  );
  return { token: await reread(deps, tokenId), secret };
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

/** Tokens are addressed by integer id; anything else is simply not found. */
export const notFound = () => reject('token-not-found', 'no such token');
