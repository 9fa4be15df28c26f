import { auditSinksDecider, auditSinksStream, type AuditSinkCommand } from '../../domain/webhook/audit-sink.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import {
  auditSinkById,
  auditSinks,
  ledgerHeadId,
  type AuditSinkRecord,
} from '../../projections/webhooks/sinks.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole, requireAuditorRole } from '../access/standing.ts';
import { addEndpoint, changeEndpoint, endpointOrNotFound, type EndpointPorts } from './signed-endpoint.ts';

/** A sink: a signed outbound endpoint (signed-endpoint.ts) with a name, switches and a ledger cursor. */
const sink = {
  noun: 'audit sink',
  url: 'sink',
  counter: 'audit-sink',
  decider: auditSinksDecider,
  stream: auditSinksStream(),
  readModels: ['webhook-deliveries', 'ledger'],
  byId: auditSinkById,
};

export type AuditSinkPorts = EndpointPorts & Readonly<{ auditExport: Readonly<{ maxPageSize: number }> }>;

/** What an admin may set on a sink: whether it is pushed, and its batch size (null: the setting). */
export type SinkSwitchesBody = Readonly<{ enabled?: boolean; batchSize?: number | null }>;

/** The per-sink batch size is clamped to gateway.audit-export.max-page-size. */
const clamped = (deps: AuditSinkPorts, body: SinkSwitchesBody) => ({
  ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
  ...(body.batchSize === undefined
    ? {}
    : { batchSize: body.batchSize === null ? null : Math.min(body.batchSize, deps.auditExport.maxPageSize) }),
});

/** A change of one sink, answered with the sink as it is then (404 when there is none). */
async function changeSink(deps: AuditSinkPorts, command: AuditSinkCommand): Promise<AuditSinkRecord> {
  await changeEndpoint(deps, sink, command);
  return endpointOrNotFound(deps, sink, command.data.sinkId);
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
  return addEndpoint(deps, sink, body.url, declaredSecret, (sinkId, registration) => ({
    type: 'create-audit-sink' as const,
    data: { sinkId, name: body.name, ...registration, ...clamped(deps, body) },
    meta,
  }));
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
  return changeSink(deps, { type: 'update-audit-sink', data: { sinkId, ...clamped(deps, body) }, meta });
}

/** Deletes a sink and its delivery channel (admin); 404 when there is none. */
export async function deleteAuditSink(
  deps: AuditSinkPorts,
  actor: Actor,
  sinkId: number,
  meta: CommandMeta,
): Promise<void> {
  await requireAdminRole(deps, actor);
  await changeEndpoint(deps, sink, { type: 'delete-audit-sink', data: { sinkId }, meta });
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
  return changeSink(deps, { type: 'set-audit-sink-cursor', data: { sinkId, position, ledgerHead }, meta });
}
