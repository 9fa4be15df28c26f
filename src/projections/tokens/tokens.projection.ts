import { sql } from '../../adapters/postgres/pool.ts';
import { isDomainEventType, type DomainEvent } from '../../domain/events.ts';
import type { Projection } from '../runner/projection.ts';

export const tokensProjection: Projection = {
  name: 'tokens',
  version: 1,
  tables: ['access_tokens'],
  createSql: [`
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
  async apply(tx, events) {
    for (const recorded of events) {
      if (!isDomainEventType(recorded.type)) continue;
      const event = { type: recorded.type, data: recorded.data } as DomainEvent;
      switch (event.type) {
        case 'token-issued': {
          const d = event.data;
          await tx.query(sql.unsafe`
            insert into access_tokens (id, kind, owner, principal, name, digest, scopes, push_scopes, api_scopes, expires_at, rotated_from, created_at)
            values (${d.tokenId}, ${d.kind}, ${d.owner}, ${d.principal}, ${d.name}, ${d.digest},
              ${sql.array([...d.scopes], 'text')}, ${sql.array([...d.pushScopes], 'text')}, ${sql.array([...d.apiScopes], 'text')},
              ${d.expiresAt}, ${d.rotatedFrom}, ${d.issuedAt})`);
          break;
        }
        case 'token-revoked':
          await tx.query(sql.unsafe`update access_tokens set revoked_at = ${event.data.revokedAt} where id = ${event.data.tokenId}`);
          break;
        case 'marketplace-push-scopes-removed':
          await tx.query(sql.unsafe`
            update access_tokens set push_scopes = array_remove(push_scopes, ${event.data.name})
            where id = any(${sql.array([...event.data.tokenIds], 'int8')})`);
          break;
        case 'token-used':
          await tx.query(sql.unsafe`update access_tokens set last_used_at = ${event.data.usedAt} where id = ${event.data.tokenId}`);
          break;
        default:
          break;
      }
    }
  },
};
