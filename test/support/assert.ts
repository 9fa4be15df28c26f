import type { Test } from 'tap';
import { z } from 'zod';
import { sql, trustedSql } from '../../src/adapters/postgres/pool.ts';
import type { TestGateway } from './gateway.ts';
import { metadata } from './core.ts';

/** The read models a refusal must leave untouched (besides the event store itself). */
export const watchedTables = ['access_tokens', 'role_grants', 'ledger_entries', 'marketplaces'] as const;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const inMs = (ms: number): string => new Date(Date.now() + ms).toISOString();
export const day = 86_400_000;
export const hour = 3_600_000;

/** Polls `probe` until it returns something other than undefined/null/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 3000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}

/**
 * Waits until every projection has applied everything up to the store's head, and the catalog build an approval
 * schedules (it follows the approval's answer) has run and been applied too; returns that head.
 */
export async function settle(gw: TestGateway, timeoutMs = 5000): Promise<bigint> {
  const caughtUp = async () => {
    const head = await gw.core.store.head();
    await eventually(async () => {
      const lowest = await gw.core.pool.oneFirst(sql.type(z.object({ p: z.bigint() }))`
        select coalesce(min(position), 0)::bigint as p from projection_checkpoints`);
      return lowest >= head;
    }, timeoutMs);
    return head;
  };
  await caughtUp();
  // Bounded: a build that keeps failing is retried with backoff, and a test may be about exactly that.
  await Promise.race([gw.core.catalog?.idle(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  return caughtUp();
}

export type StateDump = Readonly<{ head: bigint; tables: Record<string, string[]> }>;

/** The store head and every row of the watched read models, in primary-key order, as JSON text. */
export async function dumpState(gw: TestGateway): Promise<StateDump> {
  const head = await settle(gw);
  const tables: Record<string, string[]> = {};
  for (const table of watchedTables) {
    tables[table] = (await gw.core.pool.anyFirst(
      trustedSql(`select row_to_json(x)::text as j from ${table} x order by 1`),
    )) as string[];
  }
  return { head, tables };
}

/**
 * Delivering is housekeeping a refusal does not cause: the dispatcher and the audit push record it as they go,
 * and the leader signs the ledger head on its own schedule.
 */
const deliveryHousekeeping = new Set(['webhook-delivery-attempted', 'audit-batch-offered', 'audit-checkpoint-signed']);

/** The types of the events appended after `head`, delivery housekeeping left out. */
async function appendedSince(gw: TestGateway, head: bigint): Promise<string[]> {
  const types: string[] = [];
  for (let from = head; ;) {
    const batch = await gw.core.store.readAll(from, 500);
    const last = batch.at(-1);
    if (!last) return types;
    types.push(...batch.map((event) => event.type).filter((type) => !deliveryHousekeeping.has(type)));
    from = last.position;
  }
}

/**
 * Runs `fn` and asserts that it changed nothing: no event was appended (webhook and sink delivery aside) and the rows of
 * access_tokens, role_grants, ledger_entries and marketplaces are identical. Waits after `fn` for the token uses
 * its requests recorded (lastUsedAt is written off the request path) and for the read models.
 */
export async function assertNothingChanged<T>(
  t: Test,
  gw: TestGateway,
  fn: () => Promise<T>,
  message = 'the refusal',
): Promise<T> {
  const before = await dumpState(gw);
  const result = await fn();
  // lastUsedAt is written off the request path: wait for what the requests started, then a moment for anything
  // else deferred, before looking again.
  await gw.tokenUse.idle();
  await sleep(30);
  const after = await dumpState(gw);
  t.strictSame(await appendedSince(gw, before.head), [], `${message} appended no event`);
  for (const table of watchedTables) {
    t.strictSame(after.tables[table], before.tables[table], `${message} left ${table} unchanged`);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// HTTP clients

export type Client = Readonly<{
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  put(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  delete(path: string, headers?: Record<string, string>): Promise<Response>;
}>;

const withBody = (body: unknown): RequestInit => (body === undefined ? {} : { body: JSON.stringify(body) });
const jsonType = (body: unknown): Record<string, string> =>
  body === undefined ? {} : { 'content-type': 'application/json' };

function client(
  send: (method: string, path: string, body: unknown, headers: Record<string, string>) => Promise<Response>,
): Client {
  return {
    request: (method, path, body, headers = {}) => send(method, path, body, headers),
    get: (path, headers = {}) => send('GET', path, undefined, headers),
    post: (path, body, headers = {}) => send('POST', path, body, headers),
    put: (path, body, headers = {}) => send('PUT', path, body, headers),
    delete: (path, headers = {}) => send('DELETE', path, undefined, headers),
  };
}

export const xsrfFrom = (response: Response): string | undefined =>
  /(?:^|[\s,])XSRF-TOKEN=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];

/**
 * The development hatch's session path as a browser would use it: X-Dev-User (and X-Dev-Groups),
 * and the XSRF-TOKEN cookie taken from a response and echoed as cookie and X-XSRF-TOKEN header.
 * `csrf: false` sends state-changing requests without the echo.
 */
export function session(
  gw: TestGateway,
  user: string,
  groups?: readonly string[],
  options: { csrf?: boolean } = {},
): Client {
  let xsrf: string | undefined;
  const identity: Record<string, string> = {
    'x-dev-user': user,
    ...(groups ? { 'x-dev-groups': groups.join(',') } : {}),
  };
  return client(async (method, path, body, headers) => {
    if (xsrf === undefined && options.csrf !== false && !['GET', 'HEAD'].includes(method)) {
      xsrf = xsrfFrom(await gw.fetch('/api/v1/me', { headers: identity }));
      if (xsrf === undefined) throw new Error('the gateway set no XSRF-TOKEN cookie');
    }
    const csrf: Record<string, string> =
      xsrf !== undefined && options.csrf !== false ? { cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf } : {};
    const response = await gw.fetch(path, {
      method,
      ...withBody(body),
      headers: { ...identity, ...jsonType(body), ...csrf, ...headers },
    });
    xsrf ??= xsrfFrom(response);
    return response;
  });
}

/** The machine path: Authorization: Bearer <secret>, no cookie, no CSRF echo. */
export function machine(gw: TestGateway, secret: string): Client {
  return client((method, path, body, headers) =>
    gw.fetch(path, {
      method,
      ...withBody(body),
      headers: { authorization: `Bearer ${secret}`, ...jsonType(body), ...headers },
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Answers

export type TokenView = {
  id: number;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  scopes: string[];
  pushScopes: string[];
  apiScopes: string[];
  expiresAt: string | null;
  rotatedFrom: number | null;
  sessionDerived: boolean;
  lastUsedAt: string | null;
  principal?: string;
  machineOwner?: string;
  token?: string;
};
export type GrantView = {
  id: number;
  principal: string;
  role: string;
  marketplace: string | null;
  grantedBy: string;
  grantedAt: string;
};
export type ProblemView = { type: string; title: string; status: number; detail: string; instance: string };

// Test output never shows a token's secret (a created token's answer carries it once).
const excerpt = (raw: string) => {
  const text = raw.replace(/gw_[A-Za-z0-9_-]+/g, 'gw_[redacted]');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

export const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;

/** Asserts a problem document (spec, Errors) with the status and, when given, the problem slug. */
export async function expectProblem(
  t: Test,
  response: Response,
  status: number,
  code?: string,
  message = '',
): Promise<ProblemView> {
  const text = await response.text();
  t.equal(response.status, status, `${message} answers ${status}: ${excerpt(text)}`.trim());
  t.match(
    response.headers.get('content-type') ?? '',
    /^application\/problem\+json/,
    `${message} is a problem document`.trim(),
  );
  const problem = JSON.parse(text || '{}') as ProblemView;
  t.equal(problem.status, status, `${message} problem status`.trim());
  if (code !== undefined)
    t.match(problem.type, new RegExp(`/problems/${code}$`), `${message} problem type ${code}`.trim());
  return problem;
}

/** Asserts a status and returns the parsed JSON body. */
export async function expectJson<T>(t: Test, response: Response, status: number, message = ''): Promise<T> {
  const text = await response.text();
  t.equal(response.status, status, `${message} answers ${status}: ${excerpt(text)}`.trim());
  return (text === '' ? null : JSON.parse(text)) as T;
}

// ---------------------------------------------------------------------------------------------
// Store and read-model helpers

/**
 * Registers a marketplace the way the (future) registration endpoint will: a marketplace-registered
 * event on `marketplace-<id>`; waits until the marketplaces read model shows it.
 */
export async function registerMarketplace(
  gw: TestGateway,
  id: number,
  name: string,
  origin: 'upstream' | 'hosted',
): Promise<void> {
  await gw.core.store.append(
    `marketplace-${id}`,
    [
      {
        type: 'marketplace-registered',
        data: {
          marketplaceId: id,
          name,
          origin,
          url: origin === 'upstream' ? `https://example.test/${name}.git` : null,
          pushPolicy: origin === 'hosted' ? 'append-only' : null,
          registeredAt: new Date().toISOString(),
          registeredBy: 'root',
        },
        metadata: metadata({ principal: 'root', at: new Date().toISOString() }),
      },
    ],
    'no-stream',
  );
  await eventually(() => gw.core.pool.exists(sql.unsafe`select 1 from marketplaces where id = ${id}`));
}

export async function removeMarketplace(gw: TestGateway, id: number, name: string): Promise<void> {
  await gw.core.store.append(
    `marketplace-${id}`,
    [
      {
        type: 'marketplace-removed',
        data: {
          marketplaceId: id,
          name,
          reason: 'retired',
          removedAt: new Date().toISOString(),
          removedBy: 'root',
          withdrawnSnapshotIds: [],
        },
        metadata: metadata({ principal: 'root', at: new Date().toISOString() }),
      },
    ],
    0n,
  );
  await eventually(() =>
    gw.core.pool.exists(sql.unsafe`select 1 from marketplaces where id = ${id} and removed_at is not null`),
  );
}

export type LedgerRow = {
  id: string;
  source: string;
  principal: string;
  actor_type: string;
  marketplace: string;
  marketplace_id: string | null;
  event: string;
  detail: string | null;
  token_id: string | null;
};

/** Ledger entries, oldest first, optionally of one event name (ids and numbers as text). */
export async function ledger(gw: TestGateway, event?: string): Promise<LedgerRow[]> {
  await settle(gw);
  const rows = (await gw.core.pool.anyFirst(
    trustedSql(
      `select row_to_json(x)::text from (select id::text, source, principal, actor_type, marketplace, marketplace_id::text, event, detail, token_id::text
     from ledger_entries order by ledger_entries.id) x`,
    ),
  )) as string[];
  const entries = rows.map((row) => JSON.parse(row) as LedgerRow);
  return event === undefined ? entries : entries.filter((entry) => entry.event === event);
}

/** The access_tokens row of a token (digest included), or null. */
export async function tokenRow(
  gw: TestGateway,
  id: number,
): Promise<{ digest: string; last_used_at: string | null; revoked_at: string | null } | null> {
  const text = (await gw.core.pool.maybeOneFirst(sql.unsafe`
    select row_to_json(x)::text from (select digest, last_used_at, revoked_at from access_tokens where id = ${id}) x`)) as
    string | null;
  return text === null
    ? null
    : (JSON.parse(text) as { digest: string; last_used_at: string | null; revoked_at: string | null });
}
