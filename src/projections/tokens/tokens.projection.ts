import { sql } from '../../adapters/postgres/pool.ts';
import { dispatch, statement } from '../runner/dispatch.ts';
import type { Projection } from '../runner/projection.ts';

export const tokensProjection: Projection = {
  name: 'tokens',
  version: 1,
  tables: ['access_tokens'],
  createSql: [
    `
    create table access_tokens (
      id bigint primary key,
      kind text not null,
      owner text not null,
      principal text not null,
      name text not null,
      digest text not null,
      scopes text[] not null,
      push_scopes text[] not null,
      api_scopes text[] not null,
      expires_at timestamptz,
      rotated_from bigint,
      created_at timestamptz not null,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`,
    // authentication looks a secret up by its digest among active tokens: the hot path
    'create unique index access_tokens_digest on access_tokens (digest)',
    'create index access_tokens_owner on access_tokens (owner, id)',
  ],
  apply: dispatch({
    'token-issued': statement(
      (d) => sql.unsafe`
      insert into access_tokens
        (id, kind, owner, principal, name, digest, scopes, push_scopes, api_scopes, expires_at, rotated_from,
        created_at)
      values (${d.tokenId}, ${d.kind}, ${d.owner}, ${d.principal}, ${d.name}, ${d.digest},
        ${sql.array([...d.scopes], 'text')}, ${sql.array([...d.pushScopes], 'text')},
        ${sql.array([...d.apiScopes], 'text')},
        ${d.expiresAt}, ${d.rotatedFrom}, ${d.issuedAt})`,
    ),
    'token-revoked': statement(
      (d) => sql.unsafe`
      update access_tokens set revoked_at = ${d.revokedAt} where id = ${d.tokenId}`,
    ),
    'marketplace-push-scopes-removed': statement(
      (d) => sql.unsafe`
      update access_tokens set push_scopes = array_remove(push_scopes, ${d.name})
      where id = any(${sql.array([...d.tokenIds], 'int8')})`,
    ),
    'token-used': statement(
      (d) => sql.unsafe`
      update access_tokens set last_used_at = ${d.usedAt} where id = ${d.tokenId}`,
    ),
  }),
};
