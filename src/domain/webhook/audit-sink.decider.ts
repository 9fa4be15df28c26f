import { registrationRefusal } from '../marketplace/trust-boundary.ts';
import { isResourceName } from '../kernel/names.ts';
import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { AuditSinkEvent } from './webhook.events.ts';
import { ledgerUrl } from './ledger-url.ts';

// Every sink lives in one stream, so a name is taken or freed in order.
export const auditSinksStream = () => 'auditsinks-global';

/** Whether a sink is pushed, and its batch size (null: gateway.audit-export.batch-size). */
export type SinkSwitches = Readonly<{ enabled: boolean; batchSize: number | null }>;

export type CreateAuditSink = Command<
  'create-audit-sink',
  {
    sinkId: number;
    name: string;
    url: string;
    sealedSecret: string;
    allowedSchemes: readonly string[];
  } & Partial<SinkSwitches>
>;
/** Changes what is given; the rest stays. */
export type UpdateAuditSink = Command<'update-audit-sink', { sinkId: number } & Partial<SinkSwitches>>;
export type DeleteAuditSink = Command<'delete-audit-sink', { sinkId: number }>;
/** `ledgerHead`: the id of the ledger's last entry when the command was made; a cursor never goes past it. */
export type SetAuditSinkCursor = Command<
  'set-audit-sink-cursor',
  { sinkId: number; position: number; ledgerHead: number }
>;
export type AuditSinkCommand = CreateAuditSink | UpdateAuditSink | DeleteAuditSink | SetAuditSinkCursor;

type SinkState = SinkSwitches & Readonly<{ name: string }>;
/** Sink id to its name and switches. */
export type AuditSinksState = Readonly<{ sinks: ReadonlyMap<number, SinkState> }>;

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
  if ([...state.sinks.values()].some((sink) => sink.name === data.name)) {
    return refuse<AuditSinkEvent>({ code: 'conflict', detail: `an audit sink named '${data.name}' exists` });
  }
  return null;
}

export const auditSinksDecider: Decider<AuditSinksState, AuditSinkCommand, AuditSinkEvent> = {
  initialState: () => ({ sinks: new Map() }),
  evolve(state, event) {
    const sinks = new Map(state.sinks);
    const { data } = event;
    if (event.type === 'audit-sink-created' || event.type === 'audit-sink-updated') {
      sinks.set(data.sinkId, { name: event.data.name, enabled: event.data.enabled, batchSize: event.data.batchSize });
    }
    if (event.type === 'audit-sink-deleted') sinks.delete(data.sinkId);
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
            enabled: data.enabled ?? true,
            batchSize: data.batchSize ?? null,
            sealedSecret: data.sealedSecret,
            createdBy: meta.principal,
            createdAt: meta.at,
            ledgerUrl: ledgerUrl(data.url),
          },
        });
      }
      case 'update-audit-sink': {
        const { sinkId, enabled, batchSize } = command.data;
        const sink = state.sinks.get(sinkId);
        if (sink === undefined) return notFound(sinkId);
        const next = {
          enabled: enabled ?? sink.enabled,
          batchSize: batchSize === undefined ? sink.batchSize : batchSize,
        };
        if (next.enabled === sink.enabled && next.batchSize === sink.batchSize) return accept<AuditSinkEvent>();
        return accept({ type: 'audit-sink-updated', data: { sinkId, name: sink.name, ...next } });
      }
      case 'delete-audit-sink': {
        const sink = state.sinks.get(command.data.sinkId);
        if (sink === undefined) return notFound(command.data.sinkId);
        return accept({ type: 'audit-sink-deleted', data: { sinkId: command.data.sinkId, name: sink.name } });
      }
      case 'set-audit-sink-cursor': {
        const { sinkId, position, ledgerHead } = command.data;
        const sink = state.sinks.get(sinkId);
        if (sink === undefined) return notFound(sinkId);
        // decision 357: past the head the sink would silently skip every entry written until the ledger got there.
        if (position > ledgerHead)
          return refuse<AuditSinkEvent>({
            code: 'invalid-request',
            detail:
              `position ${position} is past the ledger's head, entry ${ledgerHead}: a cursor names an entry that ` +
              `exists (0 replays the whole ledger)`,
            extensions: { ledgerHead },
          });
        return accept({ type: 'audit-sink-cursor-set', data: { sinkId, name: sink.name, position } });
      }
    }
  },
};
