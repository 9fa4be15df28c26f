import { auditSinksDecider, auditSinksStream } from '../../domain/webhook/audit-sink.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import {
  auditSinkById,
  auditSinks,
  ledgerHeadId,
  type AuditSinkRecord,
} from '../../projections/webhooks/sinks.queries.ts';
import { execute } from '../kernel/execute.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { reject } from '../kernel/rejected.ts';
import { refuseDeniedLiteral } from './outbound-checks.ts';
import { requireAdminRole, requireAuditorRole } from '../access/standing.ts';
import { newSigningSecret } from './signing-secret.ts';

const readModels = ['webhook-deliveries', 'ledger'];

export type AuditSinkPorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'ids' | 'access' | 'secrets' | 'marketplaces' | 'outbound'
> &
  Readonly<{ auditExport: Readonly<{ maxPageSize: number }> }>;

/** What an admin may set on a sink: whether it is pushed, and its batch size (null: the setting). */
export type SinkSwitchesBody = Readonly<{ enabled?: boolean; batchSize?: number | null }>;

/** The per-sink batch size is clamped to gateway.audit-export.max-page-size. */
const clamped = (deps: AuditSinkPorts, body: SinkSwitchesBody) => ({
  ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
  ...(body.batchSize === undefined
    ? {}
    : { batchSize: body.batchSize === null ? null : Math.min(body.batchSize, deps.auditExport.maxPageSize) }),
});

async function sinkOrNotFound(deps: Pick<Ports, 'pool'>, sinkId: number): Promise<AuditSinkRecord> {
  const sink = await auditSinkById(deps.pool, sinkId);
  if (!sink) throw reject('not-found', `no audit sink ${sinkId}`);
  return sink;
}

export type SinkBody = Readonly<{ name: string; url: string }> & SinkSwitchesBody;

/** Registers a sink (admin); the secret is answered this once and stored sealed. */
export async function createAuditSink(
  deps: AuditSinkPorts,
  actor: Actor,
  body: SinkBody,
  meta: CommandMeta,
): Promise<AuditSinkRecord & { secret: string }> {
  await requireAdminRole(deps, actor);
  return addAuditSink(deps, body, meta, null);
}

/**
 * The registration itself, for a caller with its own authority (the declarative estate, principal
 * config-reconciler): `declaredSecret` is the signing secret it brings, null to issue one. Stored sealed.
 */
export async function addAuditSink(
  deps: AuditSinkPorts,
  body: SinkBody,
  meta: CommandMeta,
  declaredSecret: string | null,
): Promise<AuditSinkRecord & { secret: string }> {
  refuseDeniedLiteral(deps, body.url, 'the sink url is outside the outbound boundary');
  const secret = declaredSecret ?? newSigningSecret();
  const sinkId = await deps.ids('audit-sink');
  const data = {
    sinkId,
    name: body.name,
    url: body.url,
    sealedSecret: deps.secrets.seal(secret),
    allowedSchemes: deps.marketplaces.allowedUrlSchemes,
    ...clamped(deps, body),
  };
  const command = { type: 'create-audit-sink', data, meta } as const;
  await execute(deps, auditSinksDecider, auditSinksStream(), command, readModels);
  return { ...(await sinkOrNotFound(deps, sinkId)), secret };
}

/** Every sink with its cursor, the ledger head and how far behind it is (auditor or admin); never a secret. */
export async function listAuditSinks(deps: Pick<Ports, 'pool' | 'access'>, actor: Actor): Promise<AuditSinkRecord[]> {
  await requireAuditorRole(deps, actor);
  return auditSinks(deps.pool);
}

/** Switches a sink on or off or changes its batch size (admin); 404 when there is none. */
export async function updateAuditSink(
  deps: AuditSinkPorts,
  actor: Actor,
  sinkId: number,
  body: SinkSwitchesBody,
  meta: CommandMeta,
): Promise<AuditSinkRecord> {
  await requireAdminRole(deps, actor);
  const command = { type: 'update-audit-sink', data: { sinkId, ...clamped(deps, body) }, meta } as const;
  await execute(deps, auditSinksDecider, auditSinksStream(), command, readModels);
  return sinkOrNotFound(deps, sinkId);
}

/** Deletes a sink and its delivery channel (admin); 404 when there is none. */
export async function deleteAuditSink(
  deps: AuditSinkPorts,
  actor: Actor,
  sinkId: number,
  meta: CommandMeta,
): Promise<void> {
  await requireAdminRole(deps, actor);
  const command = { type: 'delete-audit-sink', data: { sinkId }, meta } as const;
  await execute(deps, auditSinksDecider, auditSinksStream(), command, readModels);
}

/** Sets a sink's cursor (admin): the next batch starts after `position`, a replay when it moves back; 422 past the ledger's head. */
export async function setAuditSinkCursor(
  deps: AuditSinkPorts,
  actor: Actor,
  sinkId: number,
  position: number,
  meta: CommandMeta,
): Promise<AuditSinkRecord> {
  await requireAdminRole(deps, actor);
  // The head as of everything recorded so far: the ledger read model caught up with the store first.
  await deps.waiter.waitFor(await deps.store.head(), ['ledger']);
  const ledgerHead = await ledgerHeadId(deps.pool);
  const command = { type: 'set-audit-sink-cursor', data: { sinkId, position, ledgerHead }, meta } as const;
  await execute(deps, auditSinksDecider, auditSinksStream(), command, readModels);
  return sinkOrNotFound(deps, sinkId);
}
