import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { TokenKind } from '../../domain/token/token.events.ts';
import { maybeRecord } from '../rows.ts';

const TokenRow = z.object({
  id: z.bigint(),
  kind: z.enum(['personal', 'session', 'machine']),
  owner: z.string(),
  principal: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  push_scopes: z.array(z.string()),
  api_scopes: z.array(z.string()),
  expires_at: z.string().nullable(),
  rotated_from: z.bigint().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

export type TokenRecord = Readonly<{
  id: number;
  kind: TokenKind;
  owner: string;
  principal: string;
  name: string;
  scopes: string[];
  pushScopes: string[];
  apiScopes: string[];
  expiresAt: string | null;
  rotatedFrom: number | null;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}>;

const columns = sql.fragment`id, kind, owner, principal, name, scopes, push_scopes, api_scopes, expires_at, rotated_from, created_at, revoked_at, last_used_at`;

const toRecord = (row: z.infer<typeof TokenRow>): TokenRecord => ({
  id: Number(row.id),
  kind: row.kind,
  owner: row.owner,
  principal: row.principal,
  name: row.name,
  scopes: row.scopes,
  pushScopes: row.push_scopes,
  apiScopes: row.api_scopes,
  expiresAt: row.expires_at,
  rotatedFrom: row.rotated_from === null ? null : Number(row.rotated_from),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
});

/** The token a secret's digest names, if it is active at `at` (expired, revoked and unknown look alike). */
export async function activeTokenByDigest(
  db: CommonQueryMethods,
  digest: string,
  at: string,
): Promise<TokenRecord | null> {
  return maybeRecord(
    db,
    sql.type(TokenRow)`
    select ${columns} from access_tokens
    where digest = ${digest} and revoked_at is null and (expires_at is null or expires_at > ${at}::timestamptz)`,
    toRecord,
  );
}

export async function tokenById(db: CommonQueryMethods, id: number): Promise<TokenRecord | null> {
  return maybeRecord(db, sql.type(TokenRow)`select ${columns} from access_tokens where id = ${id}`, toRecord);
}

/** A person's own tokens (personal and session-derived), newest first. */
export async function tokensOwnedBy(db: CommonQueryMethods, owner: string): Promise<TokenRecord[]> {
  const rows = await db.any(sql.type(TokenRow)`
    select ${columns} from access_tokens where owner = ${owner} and kind <> 'machine' order by id desc`);
  return rows.map(toRecord);
}

export async function machineCredentials(db: CommonQueryMethods): Promise<TokenRecord[]> {
  const rows = await db.any(
    sql.type(TokenRow)`select ${columns} from access_tokens where kind = 'machine' order by id desc`,
  );
  return rows.map(toRecord);
}

/** Tokens whose publish grant names a marketplace (removal takes the name out of them). */
export async function pushScopeHolders(db: CommonQueryMethods, marketplace: string): Promise<number[]> {
  const ids = await db.anyFirst(sql.type(z.object({ id: z.bigint() }))`
    select id from access_tokens where ${marketplace} = any(push_scopes) order by id`);
  return ids.map(Number);
}
