import { z } from 'zod';
import { digestOf, randomHandle } from '../system/token-digests.ts';
import { migrate } from './migrate.ts';
import { sql, type DatabasePool } from './pool.ts';
import type { Migration } from '../eventstore/postgres/migrations.ts';

// Browser sessions and login attempts are operational state, not facts: they live in schema `state`,
// shared by every replica, outside the event store and the rebuilt read models.
const stateMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and login requests',
    statements: [
      `create table state.sessions (
      digest text primary key,
      principal text not null,
      claims jsonb not null,
      claims_truncated boolean not null,
      created_at timestamptz not null,
      expires_at timestamptz not null
    )`,
      'create index sessions_expiry on state.sessions (expires_at)',
      `create table state.login_requests (
      state_digest text primary key,
      code_verifier text not null,
      nonce text not null,
      return_to text not null,
      expires_at timestamptz not null
    )`,
    ],
  },
];

export type Session = Readonly<{
  principal: string;
  claims: Record<string, unknown>;
  claimsTruncated: boolean;
  expiresAt: string;
}>;
export type LoginRequest = Readonly<{ codeVerifier: string; nonce: string; returnTo: string }>;

const SessionRow = z.object({
  principal: z.string(),
  claims: z.record(z.unknown()),
  claims_truncated: z.boolean(),
  expires_at: z.string(),
});
const LoginRow = z.object({ code_verifier: z.string(), nonce: z.string(), return_to: z.string() });

/** Session ids and login request keys (OAuth state and the browser's nonce) are stored as digests: a database read does not yield a usable cookie. */
export class SessionStore {
  private readonly pool: DatabasePool;
  private constructor(pool: DatabasePool) {
    this.pool = pool;
  }

  static async open(pool: DatabasePool): Promise<SessionStore> {
    await migrate(pool, stateMigrations, 'state');
    return new SessionStore(pool);
  }

  async create(session: Session, at: string): Promise<string> {
    const id = randomHandle();
    await this.pool.query(sql.unsafe`delete from state.sessions where expires_at <= ${at}::timestamptz`);
    await this.pool.query(sql.unsafe`
      insert into state.sessions (digest, principal, claims, claims_truncated, created_at, expires_at)
      values (${digestOf(id)}, ${session.principal}, ${sql.jsonb(session.claims as never)}, ${session.claimsTruncated}, ${at}, ${session.expiresAt})`);
    return id;
  }

  async get(id: string, at: string): Promise<Session | null> {
    const row = await this.pool.maybeOne(sql.type(SessionRow)`
      select principal, claims, claims_truncated, expires_at from state.sessions
      where digest = ${digestOf(id)} and expires_at > ${at}::timestamptz`);
    return row
      ? {
          principal: row.principal,
          claims: row.claims,
          claimsTruncated: row.claims_truncated,
          expiresAt: row.expires_at,
        }
      : null;
  }

  async delete(id: string): Promise<void> {
    await this.pool.query(sql.unsafe`delete from state.sessions where digest = ${digestOf(id)}`);
  }

  /**
   * Stores a login request under `key` (its state and the browser's nonce), dropping expired ones and, when
   * more than `maxPending` wait, the oldest (decision 352): the table stays bounded whoever floods the start.
   */
  async putLoginRequest(
    key: string,
    request: LoginRequest,
    expiresAt: string,
    bound: Readonly<{ at: string; maxPending: number }>,
  ): Promise<void> {
    await this.pool.query(sql.unsafe`delete from state.login_requests where expires_at <= ${bound.at}::timestamptz`);
    await this.pool.query(sql.unsafe`
      insert into state.login_requests (state_digest, code_verifier, nonce, return_to, expires_at)
      values (${digestOf(key)}, ${request.codeVerifier}, ${request.nonce}, ${request.returnTo}, ${expiresAt})`);
    await this.pool.query(sql.unsafe`
      delete from state.login_requests where state_digest in (
        select state_digest from state.login_requests order by expires_at desc, state_digest offset ${bound.maxPending})`);
  }

  /** Each login request is used once: taking it deletes it. */
  async takeLoginRequest(key: string, at: string): Promise<LoginRequest | null> {
    const row = await this.pool.maybeOne(sql.type(LoginRow)`
      delete from state.login_requests where state_digest = ${digestOf(key)} and expires_at > ${at}::timestamptz
      returning code_verifier, nonce, return_to`);
    return row ? { codeVerifier: row.code_verifier, nonce: row.nonce, returnTo: row.return_to } : null;
  }
}
