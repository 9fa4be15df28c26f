// Writes docs/api.md from the gateway's own OpenAPI document (npm run docs:api): every operation with its
// method, path, summary, description, machine scope, parameters, request body fields and status codes, and
// every outbound webhook kind. test/unit/docs/docs.test.ts fails when the page is out of date.
import { writeFileSync } from 'node:fs';
import { scopeFor } from '../src/domain/access/api-scopes.ts';
import { openApiDocument } from './openapi-types.ts';

export const apiPage = 'docs/api.md';

type Schema = Readonly<{
  type?: string | readonly string[];
  anyOf?: readonly Schema[];
  enum?: readonly unknown[];
  const?: unknown;
  items?: Schema;
  format?: string;
  description?: string;
  properties?: Readonly<Record<string, Schema>>;
  required?: readonly string[];
}>;
type Parameter = Readonly<{ name: string; in: string; required?: boolean; description?: string; schema?: Schema }>;
type Operation = Readonly<{
  summary?: string;
  description?: string;
  tags?: readonly string[];
  parameters?: readonly Parameter[];
  requestBody?: Readonly<{ content?: Readonly<Record<string, Readonly<{ schema?: Schema }>>> }>;
  responses?: Readonly<Record<string, Readonly<{ description?: string }>>>;
}>;
type Document = Readonly<{
  paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  webhooks?: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  components?: Readonly<{ securitySchemes?: Readonly<Record<string, Readonly<{ description?: string }>>> }>;
}>;

const methods: readonly string[] = ['get', 'put', 'post', 'delete', 'patch'];

/** Table cells hold one line: pipes escaped, line breaks folded, angle brackets kept literal. */
const cell = (text: string): string =>
  text
    .replaceAll('|', '\\|')
    .replaceAll('<', '&lt;')
    .replace(/\s*\n\s*/g, ' ');

/** A schema's type in a few words: `string`, `integer[]`, `held, approved`, `string or null`. */
export function typeText(schema: Schema | undefined): string {
  if (schema === undefined) return 'any';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' or ');
  if (schema.anyOf !== undefined) {
    const literals = schema.anyOf.every((s) => s.enum?.length === 1 || s.const !== undefined);
    return literals
      ? schema.anyOf.map((s) => JSON.stringify(s.const ?? s.enum?.[0])).join(' or ')
      : [...new Set(schema.anyOf.map(typeText))].join(' or ');
  }
  if (schema.type === 'array') return `${typeText(schema.items)}[]`;
  const type = typeof schema.type === 'string' ? schema.type : (schema.type?.join(' or ') ?? 'any');
  return schema.format === undefined ? type : `${type} (${schema.format})`;
}

/** `scope`, or a note that no machine credential reaches the operation. */
function machineScope(method: string, path: string): string | null {
  if (!path.startsWith('/api/')) return null;
  const scope = scopeFor(method.toUpperCase(), path);
  return scope === null ? 'Machine scope: none (a session only).' : `Machine scope: \`${scope}\`.`;
}

function parametersTable(parameters: readonly Parameter[]): string[] {
  if (parameters.length === 0) return [];
  return [
    '',
    '| Parameter | In | Type | Required | Description |',
    '|---|---|---|---|---|',
    ...parameters.map(
      (p) =>
        `| \`${p.name}\` | ${p.in} | ${cell(typeText(p.schema))} | ${p.required ? 'yes' : 'no'} | ` +
        `${cell(p.description ?? '')} |`,
    ),
  ];
}

function bodyTable(operation: Operation): string[] {
  const content = operation.requestBody?.content;
  if (content === undefined) return [];
  const [mediaType, { schema } = {}] = Object.entries(content)[0] ?? ['', {}];
  const properties = Object.entries(schema?.properties ?? {});
  if (properties.length === 0) return ['', `Request body: \`${mediaType}\`.`];
  const required = new Set(schema?.required ?? []);
  return [
    '',
    `| Body field (\`${mediaType}\`) | Type | Required | Description |`,
    '|---|---|---|---|',
    ...properties.map(
      ([name, property]) =>
        `| \`${name}\` | ${cell(typeText(property))} | ${required.has(name) ? 'yes' : 'no'} | ` +
        `${cell(property.description ?? '')} |`,
    ),
  ];
}

function statusLines(operation: Operation): string[] {
  const responses = Object.entries(operation.responses ?? {});
  if (responses.length === 0) return [];
  const described = (description: string | undefined) =>
    description === undefined || description === 'Default Response' ? '' : `: ${cell(description)}`;
  return ['', `Status codes: ${responses.map(([status, r]) => `${status}${described(r.description)}`).join('; ')}.`];
}

/** One operation; a description already printed under an earlier operation is named, not repeated. */
function operationSection(method: string, path: string, operation: Operation, seen: Map<string, string>): string[] {
  const heading = `${method.toUpperCase()} ${path}`;
  const lines = [`### \`${heading}\``, '', operation.summary ?? ''];
  const description = operation.description?.trim() ?? '';
  if (description !== '') {
    const earlier = seen.get(description);
    lines.push('', earlier === undefined ? description : `As \`${earlier}\`: see there.`);
    if (earlier === undefined) seen.set(description, heading);
  }
  const scope = machineScope(method, path);
  if (scope !== null) lines.push('', scope);
  lines.push(...parametersTable(operation.parameters ?? []), ...bodyTable(operation), ...statusLines(operation), '');
  return lines;
}

/** The page: operations grouped by their first tag, in the document's order. */
export function apiReference(document: Document): string {
  const groups = new Map<string, string[]>();
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!methods.includes(method)) continue;
      const tag = operation.tags?.[0] ?? 'other';
      groups.set(tag, [...(groups.get(tag) ?? []), ...operationSection(method, path, operation, seen)]);
    }
  }
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).map(
    ([name, scheme]) => `- \`${name}\`: ${scheme.description ?? ''}`,
  );
  const webhooks = Object.entries(document.webhooks ?? {}).map(
    ([kind, item]) => `| \`${kind}\` | ${cell(item.post?.summary ?? '')} |`,
  );
  return [
    '# API reference',
    '',
    "Generated from the gateway's OpenAPI document (`/v3/api-docs`) by `npm run docs:api`; do not edit. Roles,",
    'tokens and scopes are explained in [access.md](access.md), problem documents in',
    '[decision 1](decisions/0001-problem-types.md) and `docs/problems/`. Every non-success API answer is a problem',
    'document (`application/problem+json`: `type`, `title`, `status`, `detail`, `instance`); a refusal over an',
    'upstream that cannot be read adds `reason`, `rootCause` and `nextStep`, a policy denial `denials[]`. The git',
    'facade is not part of this document: see [facade.md](facade.md).',
    '',
    '## Versioning',
    '',
    'The management API carries its major version in the path prefix `/api/v1`, the revocation check in',
    '`/status/v1`; the facade and `/hooks` carry none. Within a major the surface only grows: operations, fields',
    'and event kinds are added, never renamed or removed, so clients ignore what they do not know. A breaking',
    'change moves the prefix and ships as a new major. The OpenAPI document (`/v3/api-docs`, authenticated) is',
    'the machine-readable form of this page, its top-level `webhooks` object under the same promise.',
    '`GET /api/v1/me` reports the running build version (absent when the build carries none).',
    '',
    'Credentials:',
    '',
    ...schemes,
    '',
    ...[...groups].flatMap(([tag, lines]) => [`## ${tag[0]?.toUpperCase()}${tag.slice(1)}`, '', ...lines]),
    '## Outbound webhooks',
    '',
    'Each kind is a `POST` to the subscriber (or, for `audit.batch`, the audit sink) with the Standard Webhooks',
    'headers; the OpenAPI document describes every body ([webhooks.md](webhooks.md)).',
    '',
    '| Kind | When |',
    '|---|---|',
    ...webhooks,
    '',
  ].join('\n');
}

export async function apiPageText(): Promise<string> {
  return apiReference((await openApiDocument()) as unknown as Document);
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(apiPage, await apiPageText());
