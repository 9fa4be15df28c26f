import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Rejection } from '../domain/kernel/decider.ts';
import type { RejectionCode } from '../domain/kernel/rejection.ts';
import { ConcurrencyExhausted } from '../application/kernel/run-command.ts';
import { ProjectionLag } from '../projections/runner/wait-for.ts';
import { isDatabaseUnavailable } from '../adapters/postgres/unavailable.ts';
import { Rejected } from '../application/kernel/rejected.ts';

/** An RFC 9457 problem document, the body of every non-success API answer. */
export type Problem = Readonly<
  { type: string; title: string; status: number; detail: string; instance: string } & Record<string, unknown>
>;

/** One line per rejection code: the status it answers with and its title. */
const catalogue = {
  'invalid-request': { status: 422, title: 'Request does not match the schema' },
  'malformed-body': { status: 400, title: 'Request body is not well-formed' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Forbidden' },
  conflict: { status: 409, title: 'Conflicting change' },
  'projection-lag': { status: 503, title: 'Read models are catching up' },
  'database-unavailable': { status: 503, title: 'Database unavailable' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'internal-error': { status: 500, title: 'Internal error' },
  'invalid-name': { status: 422, title: 'Invalid name' },
  'marketplace-name-taken': { status: 409, title: 'Marketplace name taken' },
  'marketplace-not-found': { status: 404, title: 'Marketplace not found' },
  'trust-boundary': { status: 400, title: 'Refused at the trust boundary' },
  'token-not-found': { status: 404, title: 'Token not found' },
  'token-not-active': { status: 409, title: 'Token is revoked or expired' },
  'unknown-scope': { status: 422, title: 'Unknown scope' },
  'lifetime-beyond-cap': { status: 422, title: 'Lifetime beyond the cap' },
  'invalid-expiry': { status: 422, title: 'Invalid expiry' },
  'missing-expiry': { status: 422, title: 'Expiry required' },
  'grant-not-found': { status: 404, title: 'Role grant not found' },
  'grant-exists': { status: 409, title: 'Identical role grant exists' },
  'invalid-grant': { status: 422, title: 'Invalid role grant' },
  'snapshot-not-found': { status: 404, title: 'Snapshot not found' },
  'snapshot-already-decided': { status: 409, title: 'Snapshot already decided' },
  'snapshot-withdrawn': { status: 409, title: 'Commit withdrawn administratively' },
  'snapshot-not-approved': { status: 409, title: 'Snapshot is not approved' },
  'snapshot-not-deletable': { status: 409, title: 'Approved snapshots are never deleted' },
  'snapshot-deleted': { status: 409, title: 'Snapshot is soft-deleted' },
  'snapshot-not-deleted': { status: 409, title: 'Snapshot is not deleted' },
  'snapshot-purged': { status: 409, title: 'Snapshot content purged' },
  'restore-window-elapsed': { status: 409, title: 'Restore window elapsed' },
  'release-age-not-elapsed': { status: 409, title: 'Minimum release age not elapsed' },
  'upstream-unreadable': { status: 502, title: 'Upstream unreadable' },
  'ingest-failed': { status: 502, title: 'Ingestion failed' },
  'no-ingest-running': { status: 404, title: 'No ingest running' },
  'invalid-holdings': { status: 400, title: 'Invalid holdings request' },
  'invalid-selection': { status: 400, title: 'Invalid plugin selection' },
  'invalid-chain-order': { status: 422, title: 'Invalid vetting chain order' },
  'vetter-not-found': { status: 404, title: 'Vetter not found' },
  'invalid-waiver': { status: 400, title: 'Invalid waiver' },
  'waiver-not-found': { status: 404, title: 'Waiver not found' },
  'invalid-expression': { status: 422, title: 'Policy expression does not compile' },
  'policy-rule-exists': { status: 409, title: 'Policy rule exists' },
  'policy-rule-not-found': { status: 404, title: 'Policy rule not found' },
  'vetting-blocked': { status: 409, title: 'Vetting outcome is BLOCKED' },
  'policy-denied': { status: 409, title: 'Denied by policy' },
  'catalog-not-found': { status: 404, title: 'Catalog not found' },
  'estate-invalid': { status: 422, title: 'Estate file invalid' },
  'estate-not-configured': { status: 409, title: 'No estate file configured' },
  'portal-not-built': { status: 503, title: 'Portal not built' },
  'sbom-not-built': { status: 503, title: 'SBOM not built' },
} as const satisfies Record<RejectionCode, { status: number; title: string }>;

// Decision 1: problem `type` is `<base-url>/problems/<code>`, which /problems/<code> serves.
export const problemType = (baseUrl: string, code: RejectionCode): string => `${baseUrl}/problems/${code}`;

export function problemFor(baseUrl: string, rejection: Rejection, instance: string): Problem {
  const { status, title } = catalogue[rejection.code];
  // Extensions first, so that they can never overwrite the standard members.
  return {
    ...rejection.extensions,
    type: problemType(baseUrl, rejection.code),
    title,
    status,
    detail: rejection.detail,
    instance,
  };
}

/** A problem for a status that has no code of ours (about:blank, titled with the status phrase). */
export const plainProblem = (status: number, detail: string, instance: string): Problem => ({
  type: 'about:blank',
  title: STATUS_CODES[status] ?? 'Error',
  status,
  detail,
  instance,
});

export const instanceOf = (request: FastifyRequest): string => request.url.split('?')[0] ?? request.url;

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

type ValidationIssue = { keyword?: string; instancePath?: string; message?: string; params?: Record<string, unknown> };

const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');
const listedAt = 12;
// TypeBox names the properties in a list; ajv gives one issue per property.
const namesIn = (issue: ValidationIssue, list: string, single: string): string[] => {
  const names = issue.params?.[list] ?? issue.params?.[single];
  return (Array.isArray(names) ? names : [names]).filter((n): n is string => typeof n === 'string');
};

/**
 * One sentence naming every offending field at once (TypeBox reports every issue): unknown properties,
 * missing ones, then each other issue, so a client fixes its request in one round trip.
 */
export function validationDetail(context: string, issues: readonly ValidationIssue[], fallback: string): string {
  const at = (issue: ValidationIssue) => `${context}${issue.instancePath ?? ''}`;
  const grouped = new Map<string, string[]>();
  const add = (key: string, name: string) => grouped.set(key, [...(grouped.get(key) ?? []), name]);
  const parts: string[] = [];
  for (const issue of issues) {
    if (issue.keyword === 'additionalProperties')
      for (const name of namesIn(issue, 'additionalProperties', 'additionalProperty'))
        add(`${at(issue)} has unknown`, name);
    else if (issue.keyword === 'required')
      for (const name of namesIn(issue, 'requiredProperties', 'missingProperty'))
        add(`${at(issue)} is missing the required`, name);
  }
  for (const [lead, names] of grouped)
    parts.push(`${lead} ${names.length === 1 ? 'property' : 'properties'} ${quoted([...new Set(names)])}`);
  const choices = new Set<string>();
  for (const issue of issues) {
    if (issue.keyword === 'anyOf' && !choices.has(issue.instancePath ?? '')) {
      choices.add(issue.instancePath ?? '');
      const allowed = issues
        .filter((i) => i.keyword === 'const' && i.instancePath === issue.instancePath)
        .map((i) => String(i.params?.allowedValue));
      parts.push(
        allowed.length > 0
          ? `${at(issue)} must be one of: ${allowed.join(', ')}`
          : `${at(issue)} ${issue.message ?? 'is invalid'}`,
      );
    }
  }
  const other = issues.filter(
    (i) =>
      !['additionalProperties', 'required', 'anyOf', 'const', 'boolean'].includes(i.keyword ?? '') &&
      !choices.has(i.instancePath ?? '\u0000'),
  );
  for (const issue of other) parts.push(`${at(issue)} ${issue.message ?? 'is invalid'}`);
  const unique = [...new Set(parts)];
  if (unique.length === 0) return fallback;
  return unique.length > listedAt
    ? `${unique.slice(0, listedAt).join('; ')}; and ${unique.length - listedAt} more`
    : unique.join('; ');
}

// A supervised embedded server is back within seconds (docs/problems/database-unavailable.md).
export const databaseRetryAfterSeconds = '5';

/** Maps anything a route throws to a problem: one handler for the whole API. */
export function toProblem(
  baseUrl: string,
  error: unknown,
  request: FastifyRequest,
): { problem: Problem; headers?: Record<string, string> } {
  const instance = instanceOf(request);
  const build = (code: RejectionCode, detail: string) => problemFor(baseUrl, { code, detail }, instance);
  if (error instanceof Rejected) return { problem: problemFor(baseUrl, error.rejection, instance) };
  if (error instanceof ProjectionLag) {
    return {
      problem: build(
        'projection-lag',
        'the change was recorded, but the read models have not caught up yet; retry the read shortly',
      ),
      headers: { 'retry-after': '1' },
    };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      problem: build(
        'database-unavailable',
        'the database could not be reached while answering; retry after the Retry-After delay (a change sent may have been recorded before the connection was lost: read it back before repeating it)',
      ),
      headers: { 'retry-after': databaseRetryAfterSeconds },
    };
  }
  if (error instanceof ConcurrencyExhausted)
    return { problem: build('conflict', 'the resource kept changing while the request was decided; retry it') };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const detail = validationDetail(
      fastifyError.validationContext ?? 'request',
      fastifyError.validation as ValidationIssue[],
      fastifyError.message,
    );
    return { problem: build('invalid-request', detail) };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: build(
          'unsupported-media-type',
          `content type '${request.headers['content-type'] ?? ''}' is not accepted here; send application/json`,
        ),
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: build('payload-too-large', 'the request body exceeds the size this endpoint accepts') };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: build('malformed-body', 'the body is empty but the content type says JSON') };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { problem: build('malformed-body', `the body is not valid JSON: ${fastifyError.message}`) };
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (error instanceof SyntaxError)
      return { problem: build('malformed-body', `the body is not valid JSON: ${error.message}`) };
    return { problem: plainProblem(status, fastifyError.message, instance) };
  }
  return { problem: build('internal-error', 'the gateway failed to answer this request; the failure is logged') };
}
