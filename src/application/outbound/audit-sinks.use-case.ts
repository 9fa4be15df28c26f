import { auditSink, type AuditSinkCommand } from '../../domain/webhook/audit-sink.decider.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import {
  auditSinkById,
  auditSinks,
  ledgerHeadId,
  type AuditSinkRecord,
} from '../../projections/webhooks/sinks.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole, requireAuditorRole } from '../access/standing.ts';
import { changeEndpoint, endpointOrNotFound, endpointUseCases, type EndpointPorts } from './signed-endpoint.ts';

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

export type SinkBody = Readonly<{ name: string; url: string }> & SinkSwitchesBody;

/** A sink: a signed outbound endpoint (signed-endpoint.ts) with a name, switches and a ledger cursor. */
const sinks = endpointUseCases({
  ...auditSink,
  readModels: ['webhook-deliveries', 'ledger'],
  byId: auditSinkById,
  register: (deps: AuditSinkPorts, sinkId, registration, body: SinkBody, meta): AuditSinkCommand => {
    const data = { sinkId, name: body.name, ...registration, ...clamped(deps, body) };
    return { type: 'create-audit-sink', data, meta };
  },
  remove: (sinkId, meta): AuditSinkCommand => ({ type: 'delete-audit-sink', data: { sinkId }, meta }),
});

/** A change of one sink, answered with the sink as it is then (404 when there is none). */
async function changeSink(deps: AuditSinkPorts, command: AuditSinkCommand): Promise<AuditSinkRecord> {
  await changeEndpoint(deps, sinks.kind, command);
  return endpointOrNotFound(deps, sinks.kind, command.data.sinkId);
}

/** Registers a sink (admin); the secret is answered this once and stored sealed. */
export const createAuditSink = sinks.create;

/**
 * The registration itself, for a caller with its own authority (the declarative estate, principal
 * config-reconciler): `declaredSecret` is the signing secret it brings, null to issue one. Stored sealed.
 */
export const addAuditSink = sinks.add;

/** Deletes a sink and its delivery channel (admin); 404 when there is none. */
export const deleteAuditSink = sinks.remove;

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
