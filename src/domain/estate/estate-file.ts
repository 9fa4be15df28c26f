// The estate file (`gateway.estate.file`, docs/estate.md): YAML with four top-level lists whose items read like the
// API's request bodies (POST /api/v1/marketplaces with PUT .../sync's {mode}, POST /api/v1/roles, POST
// /api/v1/webhooks, POST /api/v1/audit/sinks). Everything the API would refuse that needs no database is
// refused here, for the whole file: one bad item applies nothing. Every error carries the file's line;
// no message echoes a value the file gives (only keys, lines and names that passed the name rule).
// Format and example: docs/estate.md.
import { LineCounter, parseDocument } from 'yaml';
import { marketplaceOrigins, pushPolicies, syncModes } from '../marketplace/marketplace.events.ts';
import { registrationRefusal } from '../marketplace/trust-boundary.ts';
import { roleNames } from '../role/role.events.ts';
import { isMarketplaceName, isResourceName } from '../kernel/names.ts';
import { isSubscribableKind, sinkOnlyKinds } from '../webhook/event-kinds.ts';
import type { DeclaredAuditSink, DeclaredGrant, DeclaredMarketplace, DeclaredWebhook, Estate } from './estate.ts';
import { EstateReader, type EstateFileError, type Fields } from './estate-file.reader.ts';

export type { EstateFileError } from './estate-file.reader.ts';
export type EstateFileResult =
  Readonly<{ ok: true; estate: Estate }> | Readonly<{ ok: false; errors: readonly EstateFileError[] }>;

const topLevel = ['marketplaces', 'grants', 'webhooks', 'audit-sinks'] as const;

/** `<file>:<line>: <message>`, one per error, in line order. */
export const formatEstateFileErrors = (file: string, errors: readonly EstateFileError[]): string[] =>
  [...errors].sort((a, b) => a.line - b.line).map((e) => `${file}:${e.line}: ${e.message}`);

/** The counts `gateway estate check` prints for a valid file. */
export const estateSummary = (estate: Estate): string =>
  `${estate.marketplaces.length} marketplace(s), ${estate.grants.length} grant(s), ` +
  `${estate.webhooks.length} webhook(s), ${estate.auditSinks.length} audit sink(s)`;

/**
 * Parse and validate an estate file's text. `allowedSchemes` is gateway.allowed-url-schemes (lower-cased).
 * An empty file declares nothing and is valid.
 */
export function parseEstateFile(text: string, allowedSchemes: readonly string[]): EstateFileResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const reader = new EstateReader(lineCounter);
  if (doc.errors.length > 0) {
    // yaml's own messages quote the offending source line: only its code and position are reported.
    for (const error of doc.errors) {
      reader.fail(lineCounter.linePos(error.pos[0]).line, `not valid YAML: ${yamlProblem(error.code)}`);
    }
    return { ok: false, errors: reader.errors };
  }
  if (doc.contents === null)
    return { ok: true, estate: { marketplaces: [], grants: [], webhooks: [], auditSinks: [] } };
  const top = reader.fields(doc.contents, 'the estate file', topLevel);
  if (top === null) return { ok: false, errors: reader.errors };
  const list = (key: (typeof topLevel)[number]) => reader.items(top.node(key), key, top.lineOf(key));
  const estate: Estate = {
    marketplaces: list('marketplaces').flatMap((item) => marketplaceOf(reader, item, allowedSchemes)),
    grants: list('grants').flatMap((item) => grantOf(reader, item)),
    webhooks: list('webhooks').flatMap((item) => webhookOf(reader, item, allowedSchemes)),
    auditSinks: list('audit-sinks').flatMap((item) => auditSinkOf(reader, item, allowedSchemes)),
  };
  duplicates(reader, estate);
  return reader.errors.length > 0 ? { ok: false, errors: reader.errors } : { ok: true, estate };
}

/** yaml's error code in words (its messages may quote the file, so they are not passed on). */
function yamlProblem(code: string): string {
  if (code === 'DUPLICATE_KEY') return 'a key appears twice in one mapping';
  if (code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document';
  return code.toLowerCase().replace(/_/g, ' ');
}

const marketplaceKeys = ['name', 'origin', 'url', 'ref', 'sync', 'pushPolicy'];
const marketplaceHints = {
  webhookSecret:
    "a marketplace's webhook secret is issued by the gateway when it enters webhook mode, never written here",
  secret: "a marketplace's webhook secret is issued by the gateway when it enters webhook mode, never written here",
  syncMode: "the sync mode is written 'sync: {mode: …}', as PUT /api/v1/marketplaces/{name}/sync takes it",
};

function marketplaceOf(reader: EstateReader, node: unknown, allowedSchemes: readonly string[]): DeclaredMarketplace[] {
  const f = reader.fields(node, 'marketplace', marketplaceKeys, marketplaceHints);
  if (f === null) return [];
  const before = reader.errors.length;
  const name = f.text('name', true);
  if (name !== null && !isMarketplaceName(name)) f.fail('name', "'name' must match ^[a-z0-9][a-z0-9_-]{0,62}$");
  const origin = f.oneOf('origin', marketplaceOrigins, false) ?? 'upstream';
  const url = f.text('url', false);
  const ref = f.text('ref', false);
  const pushPolicy = f.oneOf('pushPolicy', pushPolicies, false);
  const syncMode = syncOf(reader, f);
  if (origin === 'hosted' && f.has('url')) f.fail('url', 'a hosted marketplace has no url: publishers push to it');
  if (origin === 'upstream' && !f.has('url')) f.fail('url', "an upstream marketplace needs 'url' (or origin: hosted)");
  if (origin === 'upstream' && f.has('pushPolicy')) f.fail('pushPolicy', "'pushPolicy' applies only to hosted");
  if (ref !== null && ref !== 'main' && ref !== 'refs/heads/main') {
    f.fail('ref', "'ref' may only be main: the upstream's default branch is ingested and served as main");
  }
  if (url !== null) urlCheck(f, 'url', url, allowedSchemes);
  if (reader.errors.length > before || name === null) return [];
  return [{ name, origin, url, ref, syncMode, pushPolicy, at: { line: f.line } }];
}

function syncOf(reader: EstateReader, f: Fields) {
  if (!f.has('sync')) return null;
  const sync = reader.fields(f.node('sync'), 'marketplace sync', ['mode'], {
    schedule:
      'the schedule is gateway.sync.schedule, one for every marketplace in scheduled mode; it is not set per marketplace',
    secret: 'the webhook secret is issued by the gateway when the marketplace enters webhook mode, never written here',
  });
  return sync === null ? null : sync.oneOf('mode', syncModes, true);
}

/** The trust boundary's URL rules (scheme allowlist, no userinfo, parsable), reported at the url's line. */
function urlCheck(f: Fields, key: string, url: string, allowedSchemes: readonly string[]): void {
  const refusal = registrationRefusal({ origin: 'upstream', url, ref: null, pushPolicy: null }, allowedSchemes);
  if (refusal !== null) f.fail(key, `'${key}': ${refusal.detail}`);
}

function grantOf(reader: EstateReader, node: unknown): DeclaredGrant[] {
  const f = reader.fields(node, 'grant', ['principal', 'role', 'marketplace']);
  if (f === null) return [];
  const before = reader.errors.length;
  const principal = f.text('principal', true)?.trim() ?? null;
  const role = f.oneOf('role', roleNames, true);
  const marketplace = f.text('marketplace', false);
  if (marketplace !== null && !isMarketplaceName(marketplace)) {
    f.fail('marketplace', "'marketplace' must be a marketplace name (^[a-z0-9][a-z0-9_-]{0,62}$)");
  }
  if (role === 'approver' && !f.has('marketplace')) f.fail('role', 'an approver grant names its marketplace');
  if (role !== null && role !== 'approver' && f.has('marketplace')) {
    f.fail('marketplace', `${role} is a global role and takes no marketplace`);
  }
  if (reader.errors.length > before || principal === null || role === null) return [];
  return [{ principal, role, marketplace, at: { line: f.line } }];
}

function webhookOf(reader: EstateReader, node: unknown, allowedSchemes: readonly string[]): DeclaredWebhook[] {
  const f = reader.fields(node, 'webhook', ['url', 'events', 'description', 'secret']);
  if (f === null) return [];
  const before = reader.errors.length;
  const url = f.text('url', true);
  if (url !== null) urlCheck(f, 'url', url, allowedSchemes);
  const events = f.textList('events', true);
  for (const [i, event] of (events ?? []).entries()) {
    if (sinkOnlyKinds.has(event.text))
      reader.fail(event.line, `webhook: events[${i}] '${event.text}' goes to audit sinks only`);
    else if (!isSubscribableKind(event.text)) {
      reader.fail(event.line, `webhook: events[${i}] is not an event kind (see GET /api/v1/webhooks/events)`);
    }
  }
  const description = f.text('description', false);
  const secret = f.secret('secret');
  if (reader.errors.length > before || url === null || events === null) return [];
  const kinds = [...new Set(events.map((e) => e.text))];
  return [{ url, events: kinds, description, secret, at: { line: f.line } }];
}

function auditSinkOf(reader: EstateReader, node: unknown, allowedSchemes: readonly string[]): DeclaredAuditSink[] {
  const f = reader.fields(node, 'audit sink', ['name', 'url', 'secret']);
  if (f === null) return [];
  const before = reader.errors.length;
  const name = f.text('name', true);
  if (name !== null && !isResourceName(name)) f.fail('name', "'name' must match ^[a-z0-9][a-z0-9_-]*$");
  const url = f.text('url', true);
  if (url !== null) urlCheck(f, 'url', url, allowedSchemes);
  const secret = f.secret('secret');
  if (reader.errors.length > before || name === null || url === null) return [];
  return [{ name, url, secret, at: { line: f.line } }];
}

/** Two items the reconciler would match to one thing: same marketplace or sink name, same grant, same webhook url. */
function duplicates(reader: EstateReader, estate: Estate): void {
  const once = <T extends { at: { line: number } }>(items: readonly T[], key: (t: T) => string, what: string) => {
    const seen = new Map<string, number>();
    for (const item of items) {
      const first = seen.get(key(item));
      if (first === undefined) seen.set(key(item), item.at.line);
      else reader.fail(item.at.line, `${what} (first declared at line ${first})`);
    }
  };
  once(estate.marketplaces, (m) => m.name, 'marketplace: the name is declared twice');
  once(estate.grants, (g) => `${g.principal}\u0000${g.role}\u0000${g.marketplace ?? ''}`, 'grant: declared twice');
  once(estate.webhooks, (w) => w.url, 'webhook: a subscriber with this url is declared twice');
  once(estate.auditSinks, (s) => s.name, 'audit sink: the name is declared twice');
}
