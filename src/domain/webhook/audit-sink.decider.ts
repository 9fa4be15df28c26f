import { isResourceName } from '../kernel/names.ts';
import { accept, refuse, type Command, type Decider } from '../kernel/decider.ts';
import type { AuditSinkEvent } from './webhook.events.ts';
import { endpointUrlCheck, evolveEndpoints, registerEndpoint, withEndpoint } from './signed-endpoint.ts';
import type { EndpointRegistration, EndpointSpec } from './signed-endpoint.ts';

// An audit sink: a signed outbound endpoint (signed-endpoint.ts) with a unique name, switches and a ledger
// cursor; the ledger is pushed to it in batches.

// Every sink lives in one stream, so a name is taken or freed in order.
export const auditSinksStream = () => 'auditsinks-global';

/** Whether a sink is pushed, and its batch size (null: gateway.audit-export.batch-size). */
export type SinkSwitches = Readonly<{ enabled: boolean; batchSize: number | null }>;

export type CreateAuditSink = Command<
  'create-audit-sink',
  EndpointRegistration & { sinkId: number; name: string } & Partial<SinkSwitches>
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

/** 422 bad name, then 400 for a URL the trust boundary refuses, then 409 name taken. */
function create({ data, meta }: CreateAuditSink, state: AuditSinksState) {
  const badName = () =>
    isResourceName(data.name)
      ? null
      : ({
          code: 'invalid-name',
          detail: `'${data.name}' is not a valid sink name: it must match ^[a-z0-9][a-z0-9_-]*$`,
        } as const);
  const taken = () =>
    [...state.sinks.values()].some((sink) => sink.name === data.name)
      ? ({ code: 'conflict', detail: `an audit sink named '${data.name}' exists` } as const)
      : null;
  return registerEndpoint(data, meta, [badName, endpointUrlCheck(data), taken], (signed): AuditSinkEvent => ({
    type: 'audit-sink-created',
    data: {
      sinkId: data.sinkId,
      name: data.name,
      url: data.url,
      enabled: data.enabled ?? true,
      batchSize: data.batchSize ?? null,
      ...signed,
    },
  }));
}

/** decision 357: past the head the sink would silently skip every entry written until the ledger got there. */
function setCursor({ sinkId, position, ledgerHead }: SetAuditSinkCursor['data'], name: string) {
  if (position > ledgerHead)
    return refuse<AuditSinkEvent>({
      code: 'invalid-request',
      detail:
        `position ${position} is past the ledger's head, entry ${ledgerHead}: a cursor names an entry that ` +
        `exists (0 replays the whole ledger)`,
      extensions: { ledgerHead },
    });
  return accept<AuditSinkEvent>({ type: 'audit-sink-cursor-set', data: { sinkId, name, position } });
}

export const auditSinksDecider: Decider<AuditSinksState, AuditSinkCommand, AuditSinkEvent> = {
  initialState: () => ({ sinks: new Map() }),
  evolve(state, event) {
    const { sinkId } = event.data;
    if (event.type === 'audit-sink-created' || event.type === 'audit-sink-updated') {
      const { name, enabled, batchSize } = event.data;
      return { sinks: evolveEndpoints(state.sinks, sinkId, { name, enabled, batchSize }) };
    }
    return event.type === 'audit-sink-deleted' ? { sinks: evolveEndpoints(state.sinks, sinkId, null) } : state;
  },
  decide(command, state) {
    if (command.type === 'create-audit-sink') return create(command, state);
    const { data } = command;
    return withEndpoint(state.sinks, data.sinkId, auditSink.noun, (sink) => {
      if (command.type === 'set-audit-sink-cursor') return setCursor(command.data, sink.name);
      if (command.type === 'delete-audit-sink')
        return accept<AuditSinkEvent>({ type: 'audit-sink-deleted', data: { sinkId: data.sinkId, name: sink.name } });
      const { enabled, batchSize } = command.data;
      const next = {
        enabled: enabled ?? sink.enabled,
        batchSize: batchSize === undefined ? sink.batchSize : batchSize,
      };
      if (next.enabled === sink.enabled && next.batchSize === sink.batchSize) return accept<AuditSinkEvent>();
      return accept<AuditSinkEvent>({
        type: 'audit-sink-updated',
        data: { sinkId: data.sinkId, name: sink.name, ...next },
      });
    });
  },
};

/** A sink, as a signed outbound endpoint. */
export const auditSink: EndpointSpec<AuditSinksState, AuditSinkCommand, AuditSinkEvent> = {
  noun: 'audit sink',
  url: 'sink',
  counter: 'audit-sink',
  stream: auditSinksStream(),
  decider: auditSinksDecider,
};
