// The declarative estate applied (docs/estate.md): each declared item through the command the API
// uses for it, as `config-reconciler` (actor type system), so the ledger shows the API's event names with
// that actor. Additive and idempotent: what exists and matches is `unchanged`, a difference one command can
// change (a marketplace's sync mode) is `updated`, the rest is `created`; nothing is ever deleted. A failing
// item is a `failed` line whose detail never carries a secret, and the rest still applies.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { UpstreamError } from '../../adapters/git/git-store.ts';
import { readSecretReference, SecretReferenceError } from '../../adapters/system/secret-reference.ts';
import type {
  DeclaredAuditSink,
  DeclaredGrant,
  DeclaredMarketplace,
  DeclaredWebhook,
  Estate,
  EstateReport,
  EstateReportEntry,
} from '../../domain/estate/estate.ts';
import { fact } from '../../domain/events.ts';
import { canonicalUrl } from '../../domain/marketplace/trust-boundary.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import type { SecretReference } from '../../domain/kernel/secret-reference.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { liveMarketplaceByName, type MarketplaceRecord } from '../../projections/marketplaces/marketplaces.queries.ts';
import { allGrants } from '../../projections/roles/roles.queries.ts';
import { auditSinks } from '../../projections/webhooks/sinks.queries.ts';
import { webhookSubscribers } from '../../projections/webhooks/webhooks.queries.ts';
import { addAuditSink, type AuditSinkPorts } from '../outbound/audit-sinks.use-case.ts';
import { changeSyncMode, registerMarketplace, type MarketplacePorts } from '../marketplaces/registration.use-case.ts';
import type { Log, Ports } from '../kernel/ports.ts';
import { Rejected } from '../kernel/rejected.ts';
import { grantRole, type RolePorts } from '../access/role-grants.use-case.ts';
import { addWebhookSubscriber, type WebhookSubscriberPorts } from '../outbound/webhook-subscribers.use-case.ts';
import { isSigningSecret } from '../../domain/webhook/signing-secret.ts';

export type ReconcilePorts = MarketplacePorts &
  RolePorts &
  WebhookSubscriberPorts &
  AuditSinkPorts &
  Pick<Ports, 'clock' | 'logger'> &
  Readonly<{
    /** Reads a declared secret at the moment of use (the system adapter; tests may pass an environment). */
    readSecret?: (ref: SecretReference) => string;
  }>;

/** The principal of everything the estate applies (actor type system; docs/audit.md, Entries). */
export const reconcilerPrincipal = 'config-reconciler';

type Outcome = Pick<EstateReportEntry, 'action' | 'detail'>;

const outcome = (action: EstateReportEntry['action'], detail: string | null = null): Outcome => ({ action, detail });

/** A failure as a report line's detail: our own refusals and reference errors say why, never a value. */
function failureDetail(log: Log, what: string, error: unknown): string {
  if (error instanceof Rejected) return error.rejection.detail;
  if (error instanceof SecretReferenceError) return `the declared secret: ${error.message}`;
  log.error({ err: error }, `estate: ${what} failed`);
  return 'the gateway failed to apply it; the failure is logged';
}

/** One declared item applied: its report line, `failed` when it threw (the run goes on). */
async function line(
  deps: ReconcilePorts,
  kind: EstateReportEntry['kind'],
  name: string,
  apply: () => Promise<Outcome>,
): Promise<EstateReportEntry> {
  try {
    return { kind, name, ...(await apply()) };
  } catch (error) {
    return { kind, name, action: 'failed', detail: failureDetail(deps.logger, `${kind} ${name}`, error) };
  }
}

/** The secret a reference names; one not of the whsec_ form (24+ key bytes) is refused by naming the reference. */
function declaredSecret(deps: ReconcilePorts, ref: SecretReference | null): string | null {
  if (ref === null) return null;
  const secret = (deps.readSecret ?? readSecretReference)(ref);
  if (!isSigningSecret(secret)) {
    throw new SecretReferenceError(ref, 'not a signing secret: whsec_ and the base64 of 24 or more bytes');
  }
  return secret;
}

/** What cannot be changed by a command: reported as `failed`, with the way out. */
const cannotChange = (what: string, differences: readonly string[], wayOut: string): Outcome =>
  outcome('failed', `${what} differs (${differences.join('; ')}); the reconciler never replaces or deletes: ${wayOut}`);

function marketplaceDrift(declared: DeclaredMarketplace, existing: MarketplaceRecord): string[] {
  const drift: string[] = [];
  if (declared.origin !== existing.origin) drift.push(`origin ${existing.origin}, declared ${declared.origin}`);
  else if (declared.url !== null && canonicalUrl(declared.url) !== existing.url) drift.push('url');
  const pushPolicy = declared.origin === 'hosted' ? (declared.pushPolicy ?? 'append-only') : null;
  if (declared.origin === existing.origin && pushPolicy !== existing.pushPolicy) {
    drift.push(`pushPolicy ${existing.pushPolicy ?? 'none'}, declared ${pushPolicy ?? 'none'}`);
  }
  return drift;
}

/** The sync mode as declared (nothing when it is not, or already is); a new webhook secret is never reported. */
async function syncModeAsDeclared(
  deps: ReconcilePorts,
  declared: DeclaredMarketplace,
  existing: MarketplaceRecord,
  meta: CommandMeta,
): Promise<string | null> {
  if (declared.syncMode === null || declared.syncMode === existing.syncMode) return null;
  await changeSyncMode(deps, declared.name, declared.syncMode, meta);
  const secret = declared.syncMode === 'webhook' ? '; a webhook secret was issued (never shown here)' : '';
  return `sync mode ${declared.syncMode} (was ${existing.syncMode})${secret}`;
}

async function registered(deps: ReconcilePorts, declared: DeclaredMarketplace, meta: CommandMeta): Promise<Outcome> {
  const { name, url, ref, origin, pushPolicy } = declared;
  const registration = await registerMarketplace(deps, { name, url, ref, origin, pushPolicy }, meta, {
    unreadableUpstream: 'register',
  });
  const { marketplace, unreadableUpstream: unreadable } = registration;
  const details: string[] = [];
  if (unreadable !== null) {
    // marketplace-upstream-unreachable: the estate registered a marketplace whose upstream could not be read.
    const data = { marketplaceId: marketplace.id, name, url: marketplace.url ?? '', ...unreadableParts(unreadable) };
    const unreachable = fact('marketplace-upstream-unreachable', data);
    const { position } = await appendFacts(deps.store, streams.estate(), [unreachable], metadataOf(meta), 'any');
    await deps.waiter.waitFor(position, ['ledger']);
    details.push(`registered; its upstream could not be read (${unreadable.reason}): ${unreadable.nextStep}`);
  }
  try {
    const sync = await syncModeAsDeclared(deps, declared, marketplace, meta);
    if (sync !== null) details.push(sync);
  } catch (error) {
    return outcome('failed', `registered, but ${failureDetail(deps.logger, `sync mode of ${name}`, error)}`);
  }
  return outcome('created', details.length > 0 ? details.join('; ') : null);
}

const unreadableParts = (e: UpstreamError) => ({ reason: e.reason, rootCause: e.rootCause, nextStep: e.nextStep });

async function marketplaceLine(deps: ReconcilePorts, declared: DeclaredMarketplace, meta: CommandMeta) {
  return line(deps, 'marketplace', declared.name, async () => {
    const existing = await liveMarketplaceByName(deps.pool, declared.name);
    if (existing === null) return registered(deps, declared, meta);
    const drift = marketplaceDrift(declared, existing);
    if (drift.length > 0)
      return cannotChange('the registered marketplace', drift, 'remove it through the API to register it as declared');
    const sync = await syncModeAsDeclared(deps, declared, existing, meta);
    return sync === null ? outcome('unchanged') : outcome('updated', sync);
  });
}

const grantName = (g: DeclaredGrant) =>
  `${g.principal} as ${g.role}${g.marketplace === null ? '' : ` of ${g.marketplace}`}`;

async function grantLine(deps: ReconcilePorts, declared: DeclaredGrant, meta: CommandMeta) {
  return line(deps, 'grant', grantName(declared), async () => {
    const { principal, role, marketplace } = declared;
    const grants = await allGrants(deps.pool);
    const same = grants.some((g) => g.principal === principal && g.role === role && g.marketplace === marketplace);
    if (same) return outcome('unchanged');
    await grantRole(deps, { principal, role, marketplace }, meta);
    return outcome('created');
  });
}

const sameKinds = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((kind, i) => kind === [...b].sort()[i]);

async function webhookLine(deps: ReconcilePorts, declared: DeclaredWebhook, meta: CommandMeta) {
  return line(deps, 'webhook', declared.url, async () => {
    const existing = (await webhookSubscribers(deps.pool)).find((s) => s.url === declared.url);
    if (existing === undefined) {
      const { url, events, description } = declared;
      await addWebhookSubscriber(deps, { url, events, description }, meta, declaredSecret(deps, declared.secret));
      return outcome('created');
    }
    const drift: string[] = [];
    if (!sameKinds(existing.events, declared.events)) drift.push('events');
    if (declared.description !== null && declared.description !== existing.description) drift.push('description');
    if (drift.length === 0) return outcome('unchanged');
    const wayOut = `delete subscriber ${existing.id} through the API (DELETE /api/v1/webhooks/${existing.id}) and reconcile again`;
    return cannotChange(`subscriber ${existing.id}`, drift, wayOut);
  });
}

async function auditSinkLine(deps: ReconcilePorts, declared: DeclaredAuditSink, meta: CommandMeta) {
  return line(deps, 'audit-sink', declared.name, async () => {
    const existing = (await auditSinks(deps.pool)).find((s) => s.name === declared.name);
    if (existing === undefined) {
      const body = { name: declared.name, url: declared.url };
      await addAuditSink(deps, body, meta, declaredSecret(deps, declared.secret));
      return outcome('created');
    }
    if (existing.url === declared.url) return outcome('unchanged');
    const wayOut = `delete sink ${existing.id} through the API (DELETE /api/v1/audit/sinks/${existing.id}) and reconcile again`;
    return cannotChange(`sink ${existing.id}`, ['url'], wayOut);
  });
}

/**
 * Applies `estate` (marketplaces first, so that a grant may name one declared beside it), one item at a time,
 * as config-reconciler; the report's counts follow its lines. Records nothing itself: see reconcile.duty.ts.
 */
export async function applyEstate(
  deps: ReconcilePorts,
  estate: Estate,
  trigger: EstateReport['trigger'],
  meta: CommandMeta,
): Promise<EstateReport> {
  const entries: EstateReportEntry[] = [];
  for (const m of estate.marketplaces) entries.push(await marketplaceLine(deps, m, meta));
  for (const g of estate.grants) entries.push(await grantLine(deps, g, meta));
  for (const w of estate.webhooks) entries.push(await webhookLine(deps, w, meta));
  for (const s of estate.auditSinks) entries.push(await auditSinkLine(deps, s, meta));
  const count = (action: EstateReportEntry['action']) => entries.filter((e) => e.action === action).length;
  return {
    ranAt: meta.at,
    trigger,
    entries,
    created: count('created'),
    updated: count('updated'),
    unchanged: count('unchanged'),
    failed: count('failed'),
  };
}
