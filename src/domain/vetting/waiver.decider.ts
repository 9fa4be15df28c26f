import { accept, refuse, type Command, type Decider, type Instant } from '../kernel/decider.ts';
import type { SnapshotState } from '../kernel/snapshot-state.ts';
import type { WaiverCreated, WaiverLapsed, WaiverRevoked, WaiverScope } from './vetting.events.ts';

// Waivers of one marketplace live in its waiver stream (streams.waivers(marketplaceId)).

export type CreateWaiver = Command<
  'create-waiver',
  {
    waiverId: number;
    marketplace: Readonly<{ id: number; name: string }>;
    /** The addressed snapshot as its read model has it: a waiver is refused on one no decision can follow. */
    snapshot: Readonly<{ id: number; sha: string; state: SnapshotState; withdrawn: boolean }>;
    ruleId: string;
    scope: WaiverScope;
    path: string | null;
    justification: string;
    /** As sent: validated here. */
    expiresAt: string | null;
  }
>;
export type RevokeWaiver = Command<'revoke-waiver', { waiverId: number }>;
export type LapseWaivers = Command<'lapse-waivers', { limit: number }>;
export type WaiverCommand = CreateWaiver | RevokeWaiver | LapseWaivers;
export type WaiverEvent = WaiverCreated | WaiverRevoked | WaiverLapsed;

type Held = Readonly<{ ruleId: string; expiresAt: Instant; revoked: boolean; lapseRecorded: boolean }>;
export type WaiverState = Readonly<{
  marketplaceId: number | null;
  marketplace: string | null;
  waivers: ReadonlyMap<number, Held>;
}>;

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Why a PATH scope's path is unusable, or null. Repository-relative, no `..` (docs/vetting.md, Waivers). */
export function waiverPathProblem(path: string | null): string | null {
  if (path === null || path.trim() === '') return 'a PATH waiver needs a path';
  if (path.startsWith('/')) return 'the path must be repository-relative';
  if (path.split('/').some((segment) => segment === '..')) return "the path must not contain '..'";
  if (/[\u0000-\u001f\\]/.test(path)) return 'the path must be a plain repository path';
  return null;
}

const bad = (detail: string) => refuse<WaiverEvent>({ code: 'invalid-waiver', detail });

/**
 * Why no waiver may be made at this snapshot, or null. A rejected snapshot stays rejected and a commit
 * withdrawn administratively is never approved again, so a waiver there could change no decision; an
 * approved snapshot takes waivers (its re-vets honour them) and so does one revoked by a re-vet (it may be
 * approved again).
 */
function closedSnapshot(snapshot: CreateWaiver['data']['snapshot']) {
  if (snapshot.state === 'rejected')
    return refuse<WaiverEvent>({
      code: 'snapshot-already-decided',
      detail:
        `snapshot ${snapshot.id} is rejected: no waiver can change that decision. ` +
        'Fix the upstream and ingest again; a waiver can then be made at the new snapshot',
      extensions: { state: snapshot.state },
    });
  if (snapshot.state === 'revoked' && snapshot.withdrawn)
    return refuse<WaiverEvent>({
      code: 'snapshot-withdrawn',
      detail: `snapshot ${snapshot.id} was withdrawn administratively and is never approved again: no waiver can serve it`,
      extensions: { state: snapshot.state },
    });
  return null;
}

export const waiverDecider: Decider<WaiverState, WaiverCommand, WaiverEvent> = {
  initialState: () => ({ marketplaceId: null, marketplace: null, waivers: new Map() }),
  evolve(state, event) {
    const waivers = new Map(state.waivers);
    switch (event.type) {
      case 'waiver-created':
        waivers.set(event.data.waiverId, {
          ruleId: event.data.ruleId,
          expiresAt: event.data.expiresAt,
          revoked: false,
          lapseRecorded: false,
        });
        return { marketplaceId: event.data.marketplaceId, marketplace: event.data.marketplace, waivers };
      case 'waiver-revoked':
      case 'waiver-lapsed': {
        const held = waivers.get(event.data.waiverId);
        if (held)
          waivers.set(
            event.data.waiverId,
            event.type === 'waiver-revoked' ? { ...held, revoked: true } : { ...held, lapseRecorded: true },
          );
        return { ...state, waivers };
      }
    }
  },
  decide(command, state) {
    const { meta } = command;
    switch (command.type) {
      case 'create-waiver': {
        const { data } = command;
        const closed = closedSnapshot(data.snapshot);
        if (closed) return closed;
        if (data.ruleId.trim() === '') return bad('ruleId is required: the stable id of the finding to waive');
        if (data.justification.trim() === '') return bad('a justification is required');
        if (data.expiresAt === null || data.expiresAt.trim() === '')
          return bad('expiresAt is required: there is no unlimited waiver');
        if (!isoInstant.test(data.expiresAt) || Number.isNaN(Date.parse(data.expiresAt)))
          return bad(`expiresAt '${data.expiresAt}' is not an ISO-8601 instant`);
        if (Date.parse(data.expiresAt) <= Date.parse(meta.at)) return bad('expiresAt must be in the future');
        let scopeValue = data.snapshot.sha;
        if (data.scope === 'PATH') {
          const problem = waiverPathProblem(data.path);
          if (problem) return bad(problem);
          scopeValue = data.path!.replace(/^\.\//, '');
        }
        return accept({
          type: 'waiver-created',
          data: {
            waiverId: data.waiverId,
            marketplaceId: data.marketplace.id,
            marketplace: data.marketplace.name,
            snapshotId: data.snapshot.id,
            ruleId: data.ruleId.trim(),
            scope: data.scope,
            scopeValue,
            justification: data.justification.trim(),
            approvedBy: meta.principal,
            createdAt: meta.at,
            expiresAt: new Date(Date.parse(data.expiresAt)).toISOString(),
          },
        });
      }
      case 'revoke-waiver': {
        const held = state.waivers.get(command.data.waiverId);
        if (!held || held.revoked || state.marketplaceId === null) {
          return refuse({
            code: 'waiver-not-found',
            detail: `no waiver ${command.data.waiverId}, or it is already revoked`,
          });
        }
        return accept({
          type: 'waiver-revoked',
          data: {
            waiverId: command.data.waiverId,
            marketplaceId: state.marketplaceId,
            marketplace: state.marketplace ?? '',
            ruleId: held.ruleId,
            revokedAt: meta.at,
            revokedBy: meta.principal,
          },
        });
      }
      case 'lapse-waivers': {
        if (state.marketplaceId === null) return accept();
        const due = [...state.waivers]
          .filter(([, w]) => !w.revoked && !w.lapseRecorded && Date.parse(w.expiresAt) <= Date.parse(meta.at))
          .slice(0, command.data.limit);
        return accept(
          ...due.map(([waiverId, w]): WaiverEvent => ({
            type: 'waiver-lapsed',
            data: {
              waiverId,
              marketplaceId: state.marketplaceId!,
              marketplace: state.marketplace ?? '',
              ruleId: w.ruleId,
              expiresAt: w.expiresAt,
            },
          })),
        );
      }
    }
  },
};
