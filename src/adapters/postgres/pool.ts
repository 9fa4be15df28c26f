import {
  createBigintTypeParser,
  createPool,
  SchemaValidationError,
  sql,
  type DatabasePool,
  type DriverTypeParser,
  type Interceptor,
} from 'slonik';

export { sql };
export type { DatabasePool, Interceptor };
export type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';

const isoInstant = (value: string): string => new Date(value).toISOString();

// int8 stays a bigint (positions, counts); timestamps come back as ISO-8601 strings, the form every
// API answer uses, so rows map to JSON without a second conversion.
const typeParsers: readonly DriverTypeParser[] = [
  createBigintTypeParser(),
  { name: 'timestamptz', parse: isoInstant },
  { name: 'timestamp', parse: (value) => isoInstant(`${value}Z`) },
];

// sql.type(schema) only types a result; this interceptor makes it validate each row as well.
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow: (context, query, row) => {
    const schema = (context as { resultParser?: { '~standard': { validate(v: unknown): unknown } } }).resultParser;
    if (!schema) return row;
    const result = schema['~standard'].validate(row) as { value?: unknown; issues?: unknown };
    if (result instanceof Promise) throw new Error('asynchronous row schemas are not supported');
    if (result.issues) throw new SchemaValidationError(query, row, result.issues as never);
    return result.value as typeof row;
  },
};

export type PoolOptions = Readonly<{
  maximumPoolSize?: number;
  statementTimeoutMs?: number;
  /** Extra interceptors after the row parser (the query-count test observes queries with one). */
  interceptors?: readonly Interceptor[];
}>;

export async function openPool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  return createPool(url, {
    maximumPoolSize: options.maximumPoolSize ?? 10,
    connectionTimeout: 10_000,
    idleTimeout: 10_000,
    statementTimeout: options.statementTimeoutMs ?? 60_000,
    interceptors: [resultParser, ...(options.interceptors ?? [])],
    typeParsers,
    // slonik's default runs DISCARD ALL after every query: a second round trip each time, and it
    // drops cached plans (es.append re-planned on every call, 3.6x its server time; bench/results/
    // append-diagnosis.json). Nothing borrowed from the pool leaves session state behind: session
    // locks and LISTEN use connections of their own (advisory-lock.ts, listener.ts).
    resetConnection: async () => {},
  });
}

/** The URL with its password replaced, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable database url>';
  }
}

/** A statement from trusted text (migrations, DDL shipped with the code), never from input. */
export function trustedSql(text: string) {
  const parts = Object.freeze(Object.assign([text], { raw: Object.freeze([text]) })) as unknown as TemplateStringsArray;
  return sql.unsafe(parts);
}
