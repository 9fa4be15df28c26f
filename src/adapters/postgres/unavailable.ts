import { BackendTerminatedError, BackendTerminatedUnexpectedlyError, ConnectionError } from 'slonik';

// Socket errors of a server that is gone, restarting or unreachable (pg passes them through as they are).
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATE class 08 (connection exception), and 57P01-57P03: the server is shutting down, crashed, or
// is starting up / in recovery and refuses connections until it is done.
const sqlStates = /^(08\d{3}|08P01|57P0[1-3])$/;

// pg's own messages, which carry no code: a connection ended under a query, a client that errored,
// the connection timeout (pg's stream is destroyed with 'timeout expired'; pg-pool says 'timeout exceeded').
const messages =
  /connection terminated|connection timeout|timeout expired|timeout exceeded when trying to connect|not queryable|the database system is (starting up|shutting down|in recovery mode)/i;

const ownCause = (error: object): unknown => (error as { cause?: unknown }).cause;

/**
 * Whether an error means the database cannot be reached right now (so a retry later may succeed), as
 * opposed to a query that failed on a healthy server. Follows `cause` chains and aggregate errors,
 * since slonik wraps the driver's error and Node wraps the socket errors of every address it tried.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== 'object' || error === null) return false;
  if (
    error instanceof ConnectionError ||
    error instanceof BackendTerminatedError ||
    error instanceof BackendTerminatedUnexpectedlyError
  )
    return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (socketCodes.has(code) || sqlStates.test(code))) return true;
  if (typeof message === 'string' && messages.test(message)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true;
  return isDatabaseUnavailable(ownCause(error), depth + 1);
}
