import { Type, type Static } from 'typebox';
import type { TokenRecord } from '../../application/access/token-reads.use-case.ts';
import { NullableTimestamp, Timestamp } from './common.schema.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 });

export const CreateTokenBody = Type.Object(
  {
    name: Name,
    scopes: Type.Optional(Scopes),
    pushScopes: Type.Optional(Scopes),
    expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  },
  { additionalProperties: false },
);

// A sent expiresAt is ignored (and a session credential never carries push scopes): docs/access.md.
export const CreateSessionTokenBody = Type.Object(
  {
    name: Name,
    scopes: Type.Optional(Scopes),
    expiresAt: Type.Optional(Type.Unknown()),
    pushScopes: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const CreateMachineTokenBody = Type.Object(
  {
    principal: Type.String({ minLength: 1, maxLength: 200 }),
    name: Name,
    apiScopes: Scopes,
    // A machine credential without expiresAt is a 422 of its own, so it is optional here and checked by the decider.
    expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  },
  { additionalProperties: false },
);

export const TokenView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Timestamp,
  revokedAt: NullableTimestamp,
  scopes: Type.Array(Type.String()),
  pushScopes: Type.Array(Type.String()),
  apiScopes: Type.Array(Type.String()),
  expiresAt: NullableTimestamp,
  rotatedFrom: Type.Union([Type.Integer(), Type.Null()]),
  sessionDerived: Type.Boolean(),
  lastUsedAt: NullableTimestamp,
  principal: Type.Optional(Type.String()),
  machineOwner: Type.Optional(Type.String()),
  token: Type.Optional(
    Type.String({ description: 'the cleartext secret: only in the response that creates or rotates it' }),
  ),
});
export type TokenView = Static<typeof TokenView>;

export function tokenView(token: TokenRecord, secret?: string): TokenView {
  return {
    id: token.id,
    name: token.name,
    createdAt: token.createdAt,
    revokedAt: token.revokedAt,
    scopes: token.scopes,
    pushScopes: token.pushScopes,
    apiScopes: token.apiScopes,
    expiresAt: token.expiresAt,
    rotatedFrom: token.rotatedFrom,
    sessionDerived: token.kind === 'session',
    lastUsedAt: token.lastUsedAt,
    ...(token.kind === 'machine' ? { principal: token.principal, machineOwner: token.owner } : {}),
    ...(secret === undefined ? {} : { token: secret }),
  };
}
