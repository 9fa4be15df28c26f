import { isApiScope } from '../access/api-scopes.ts';
import { accept, refuse, type Command, type Decider, type Instant, type Rejection } from '../kernel/decider.ts';
import type { TokenEvent, TokenFields, TokenKind } from './token.events.ts';

const day = 86_400_000;
/** Machine credentials are capped at max-ttl, or 90 days when it is unset. */
export const machineDefaultCapMs = 90 * day;
/** lastUsedAt is written at most once per token per minute. */
export const lastUsedIntervalMs = 60_000;

export type IssuePolicy = Readonly<{
  /** Live marketplace names a fetch scope may name (the catalog name included). */
  registered: readonly string[];
  /** Live hosted marketplace names a push scope may name. */
  hosted: readonly string[];
  maxTtlMs: number | null;
  sessionTtlMs: number;
}>;

export type IssueToken = Command<
  'issue-token',
  Omit<TokenFields, 'expiresAt'> & {
    tokenId: number;
    digest: string;
    expiresAt: Instant | null;
    policy: IssuePolicy;
  }
>;
/** The second half of a rotation: the same name, scopes and deadline under a new secret. */
export type IssueRotatedToken = Command<
  'issue-rotated-token',
  TokenFields & { tokenId: number; digest: string; rotatedFrom: number }
>;
export type RevokeToken = Command<
  'revoke-token',
  {
    /** The caller, for owner-scoped routes; null where an administrator acts on any (machine credentials). */
    asOwner: string | null;
    /** The kinds the route addresses: a machine credential is not reachable through /tokens/{id}. */
    kinds: readonly TokenKind[];
    cause: 'deleted' | 'rotated';
  }
>;
export type RecordTokenUse = Command<'record-token-use', { tokenId: number }>;
export type TokenCommand = IssueToken | IssueRotatedToken | RevokeToken | RecordTokenUse;

export type TokenState =
  | { status: 'none' }
  | { status: 'issued'; tokenId: number; fields: TokenFields; revokedAt: Instant | null; lastUsedAt: Instant | null };

const unknownScope = (detail: string): Rejection => ({ code: 'unknown-scope', detail });
const beyondCap = (detail: string): Rejection => ({ code: 'lifetime-beyond-cap', detail });
const plus = (at: Instant, ms: number): Instant => new Date(Date.parse(at) + ms).toISOString();
const expired = (fields: TokenFields, at: Instant) =>
  fields.expiresAt !== null && Date.parse(fields.expiresAt) <= Date.parse(at);
const days = (ms: number) => `${Math.round((ms / day) * 100) / 100} days`;

/** The creation rules of tokens (docs/access.md, Tokens); null when the request is acceptable. */
function creationRefusal(data: IssueToken['data'], at: Instant): Rejection | null {
  const { kind, policy } = data;
  if (kind === 'machine') {
    if (data.principal.trim() === '')
      return {
        code: 'invalid-request',
        detail: 'a machine credential needs a principal: what the ledger attributes its actions to',
      };
    if (data.apiScopes.length === 0)
      return unknownScope('a machine credential needs at least one API scope; there is no default');
    for (const scope of data.apiScopes) {
      if (scope === '*' || scope === 'all')
        return unknownScope(`'${scope}' is not a scope: there is no wildcard; name each scope`);
      if (!isApiScope(scope)) return unknownScope(`'${scope}' is not an API scope`);
    }
    if (data.expiresAt === null)
      return { code: 'missing-expiry', detail: 'a machine credential needs expiresAt; it is never defaulted' };
  } else if (data.apiScopes.length > 0) {
    return unknownScope('API scopes are given only to machine credentials');
  }
  const registered = new Set(policy.registered);
  for (const scope of data.scopes)
    if (!registered.has(scope)) return unknownScope(`'${scope}' is not a registered marketplace`);
  const hosted = new Set(policy.hosted);
  for (const scope of data.pushScopes)
    if (!hosted.has(scope)) return unknownScope(`'${scope}' is not a registered hosted marketplace`);
  if (kind === 'session') return null; // the gateway fixes its lifetime
  if (data.expiresAt !== null && Date.parse(data.expiresAt) <= Date.parse(at)) {
    return { code: 'invalid-expiry', detail: 'expiresAt must be in the future' };
  }
  const cap = kind === 'machine' ? (policy.maxTtlMs ?? machineDefaultCapMs) : policy.maxTtlMs;
  if (cap !== null) {
    // A request beyond the cap, including one with no expiry, is refused, never shortened.
    if (data.expiresAt === null) return beyondCap(`tokens may live at most ${days(cap)}; set expiresAt within that`);
    if (Date.parse(data.expiresAt) > Date.parse(at) + cap)
      return beyondCap(`expiresAt is beyond the ${days(cap)} lifetime cap`);
  }
  return null;
}

export const tokenDecider: Decider<TokenState, TokenCommand, TokenEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'token-issued': {
        const { tokenId, digest: _digest, rotatedFrom: _from, issuedAt: _at, issuedBy: _by, ...fields } = event.data;
        return { status: 'issued', tokenId, fields, revokedAt: null, lastUsedAt: null };
      }
      case 'token-revoked':
        return state.status === 'issued' ? { ...state, revokedAt: event.data.revokedAt } : state;
      case 'token-used':
        return state.status === 'issued' ? { ...state, lastUsedAt: event.data.usedAt } : state;
    }
  },
  decide(command, state) {
    const { meta } = command;
    switch (command.type) {
      case 'issue-token': {
        if (state.status !== 'none')
          return refuse({ code: 'conflict', detail: `token ${command.data.tokenId} exists` });
        const refusal = creationRefusal(command.data, meta.at);
        if (refusal) return refuse(refusal);
        const { policy, ...data } = command.data;
        const session = data.kind === 'session';
        return accept({
          type: 'token-issued',
          data: {
            ...data,
            // Session credentials never carry push scopes; their lifetime is fixed.
            pushScopes: session ? [] : data.pushScopes,
            expiresAt: session ? plus(meta.at, policy.sessionTtlMs) : data.expiresAt,
            rotatedFrom: null,
            issuedAt: meta.at,
            issuedBy: meta.principal,
          },
        });
      }
      case 'issue-rotated-token': {
        if (state.status !== 'none')
          return refuse({ code: 'conflict', detail: `token ${command.data.tokenId} exists` });
        return accept({ type: 'token-issued', data: { ...command.data, issuedAt: meta.at, issuedBy: meta.principal } });
      }
      case 'revoke-token': {
        const { asOwner, kinds, cause } = command.data;
        if (
          state.status !== 'issued' ||
          !kinds.includes(state.fields.kind) ||
          (asOwner !== null && state.fields.owner !== asOwner)
        ) {
          // Not owned by the caller is indistinguishable from nonexistent.
          return refuse({ code: 'token-not-found', detail: 'no such token' });
        }
        if (cause === 'rotated' && (state.revokedAt !== null || expired(state.fields, meta.at))) {
          return refuse({
            code: 'token-not-active',
            detail: `token ${state.tokenId} is ${state.revokedAt !== null ? 'revoked' : 'expired'} and cannot be rotated`,
          });
        }
        if (state.revokedAt !== null) return accept(); // deleting a revoked token again changes nothing
        const { kind, owner, principal, name } = state.fields;
        return accept({
          type: 'token-revoked',
          data: {
            tokenId: state.tokenId,
            kind,
            owner,
            principal,
            name,
            cause,
            revokedAt: meta.at,
            revokedBy: meta.principal,
          },
        });
      }
      case 'record-token-use': {
        if (state.status !== 'issued' || state.revokedAt !== null || expired(state.fields, meta.at)) return accept();
        if (state.lastUsedAt !== null && Date.parse(meta.at) - Date.parse(state.lastUsedAt) < lastUsedIntervalMs)
          return accept();
        return accept({ type: 'token-used', data: { tokenId: state.tokenId, usedAt: meta.at } });
      }
    }
  },
};
