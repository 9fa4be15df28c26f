import { registrationRefusal } from '../marketplace/trust-boundary.ts';
import { isResourceName } from '../shared/names.ts';
import { accept, refuse, type Command, type Decider } from '../shared/decider.ts';
import type { AuditSinkEvent } from './webhook.events.ts';

// Every sink lives in one stream, so a name is taken or freed in order.
export const auditSinksStream = () => 'auditsinks-global';

export type CreateAuditSink = Command<
  'create-audit-sink',
  { sinkId: number; name: string; url: string; sealedSecret: string; allowedSchemes: readonly string[] }
>;
export type DeleteAuditSink = Command<'delete-audit-sink', { sinkId: number }>;
export type SetAuditSinkCursor = Command<'set-audit-sink-cursor', { sinkId: number; position: number }>;
export type AuditSinkCommand = CreateAuditSink | DeleteAuditSink | SetAuditSinkCursor;

/** Sink id to name. */
export type AuditSinksState = Readonly<{ sinks: ReadonlyMap<number, string> }>;

const notFound = (id: number) => refuse<AuditSinkEvent>({ code: 'not-found', detail: `no audit sink ${id}` });

/** 422 bad name, 400 for a URL the trust boundary refuses, 409 name taken. */
function createRefusal(data: CreateAuditSink['data'], state: AuditSinksState) {
  if (!isResourceName(data.name)) {
    return refuse<AuditSinkEvent>({
      code: 'invalid-name',
      detail: `'${data.name}' is not a valid sink name: it must match ^[a-z0-9][a-z0-9_-]*$`,
    });
  }
  const boundary = registrationRefusal(
    { origin: 'upstream', url: data.url, ref: null, pushPolicy: null },
    data.allowedSchemes,
  );
  if (boundary) return refuse<AuditSinkEvent>(boundary);
  if ([...state.sinks.values()].includes(data.name)) {
    return refuse<AuditSinkEvent>({ code: 'conflict', detail: `an audit sink named '${data.name}' exists` });
  }
  return null;
}

export const auditSinksDecider: Decider<AuditSinksState, AuditSinkCommand, AuditSinkEvent> = {
  initialState: () => ({ sinks: new Map() }),
  evolve(state, event) {
    const sinks = new Map(state.sinks);
    if (event.type === 'audit-sink-created') sinks.set(event.data.sinkId, event.data.name);
    if (event.type === 'audit-sink-deleted') sinks.delete(event.data.sinkId);
    return { sinks };
  },
  decide(command, state) {
    switch (command.type) {
      case 'create-audit-sink': {
        const { data, meta } = command;
        const refusal = createRefusal(data, state);
        if (refusal) return refusal;
        return accept({
          type: 'audit-sink-created',
          data: {
            sinkId: data.sinkId,
            name: data.name,
            url: data.url,
            enabled: true,
            sealedSecret: data.sealedSecret,
            createdBy: meta.principal,
            createdAt: meta.at,
          },
        });
      }
      case 'delete-audit-sink': {
        const name = state.sinks.get(command.data.sinkId);
        if (name === undefined) return notFound(command.data.sinkId);
        return accept({ type: 'audit-sink-deleted', data: { sinkId: command.data.sinkId, name } });
      }
      case 'set-audit-sink-cursor': {
        const { sinkId, position } = command.data;
        const name = state.sinks.get(sinkId);
        if (name === undefined) return notFound(sinkId);
        return accept({ type: 'audit-sink-cursor-set', data: { sinkId, name, position } });
      }
    }
  },
};
