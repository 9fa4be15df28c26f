import type { PolicyDenied } from '../policy/policy.events.ts';
import { accept, refuse, type Command, type Decider, type Decision, type Instant } from '../kernel/decider.ts';
import { isMarketplaceName } from '../kernel/names.ts';
import { decideDeletion, type DeletionCommand } from '../snapshot/snapshot-deletion.ts';
import {
  decideSnapshot,
  deletionSubject,
  evolveSnapshots,
  noSnapshots,
  type SnapshotCommand,
  type SnapshotsState,
} from '../snapshot/snapshot.decider.ts';
import type { UnresolvedSource } from '../plugin/manifest-policy.ts';
import type { LeftOut } from '../snapshot/selection.ts';
import type { IngestTrigger, SnapshotEvent } from '../snapshot/snapshot.events.ts';
import type { MarketplaceEvent, MarketplaceOrigin, PushPolicy, SyncMode } from './marketplace.events.ts';
import { checkSelection, sameSelection, type PluginSelection } from '../snapshot/selection.ts';

export type RegisterMarketplace = Command<
  'register-marketplace',
  {
    marketplaceId: number;
    name: string;
    origin: MarketplaceOrigin;
    url: string | null;
    pushPolicy: PushPolicy | null;
  }
>;
export type RemoveMarketplace = Command<
  'remove-marketplace',
  {
    reason: string;
    /** Tokens whose publish grant names this marketplace, read by the handler. */
    pushScopeTokenIds: readonly number[];
  }
>;
export type RecordIngest = Command<
  'record-ingest',
  {
    /** Allocated before deciding; used only when the commit was not captured before. */
    snapshotId: number;
    sha: string;
    upstreamSha: string;
    violation: string | null;
    trigger: IngestTrigger;
    committedAt: Instant | null;
    description: string | null;
    /** Plugins withheld from the composite: their external source could not be read (none when absent). */
    unresolved?: readonly UnresolvedSource[];
    /** Plugins the marketplace's selection left out (curation; none when absent). */
    leftOut?: readonly LeftOut[];
  }
>;
export type RecordIngestFailure = Command<
  'record-ingest-failure',
  { reason: string; rootCause: string; nextStep: string; trigger: IngestTrigger }
>;
/** The sealed secret is made by the handler (the domain holds no key); used only when entering webhook mode. */
export type ChangeSyncMode = Command<'change-sync-mode', { mode: SyncMode; sealedWebhookSecret: string }>;
/** Patterns as the admin sent them; the decider validates and normalises them (selection.ts). */
export type SetPluginSelection = Command<
  'set-plugin-selection',
  { include: readonly string[]; exclude: readonly string[] }
>;
export type MarketplaceCommand =
  | RegisterMarketplace
  | RemoveMarketplace
  | RecordIngest
  | RecordIngestFailure
  | ChangeSyncMode
  | SetPluginSelection
  | SnapshotCommand
  | DeletionCommand;

export type MarketplaceState =
  | { status: 'none' }
  | {
      status: 'live' | 'removed';
      marketplaceId: number;
      name: string;
      /** The snapshot decider's state: snapshots are decided in their marketplace's stream. */
      snapshots: SnapshotsState;
      syncMode: SyncMode;
      /** Which plugins are served (curation); null serves every plugin. */
      selection: PluginSelection | null;
    };

// Snapshots live in their marketplace's stream: capturing a commit once, deciding on it, and
// withdrawing every approval on removal are each one atomic append (decision 45).
type Event = MarketplaceEvent | SnapshotEvent | PolicyDenied;

type Known = Extract<MarketplaceState, { marketplaceId: number }>;

/** Where a marketplace's snapshot events say they belong. */
const homeOf = (state: Known) => ({ marketplaceId: state.marketplaceId, marketplace: state.name });

function decideRegister({ data, meta }: RegisterMarketplace, state: MarketplaceState): Decision<Event> {
  if (!isMarketplaceName(data.name)) {
    return refuse({
      code: 'invalid-name',
      detail: `'${data.name}' is not a valid marketplace name: it is the /git/<name> path clients clone, and must match ^[a-z0-9][a-z0-9_-]{0,62}$`,
    });
  }
  if (state.status !== 'none')
    return refuse({ code: 'conflict', detail: `marketplace ${data.marketplaceId} already exists` });
  return accept({
    type: 'marketplace-registered',
    data: { ...data, registeredAt: meta.at, registeredBy: meta.principal },
  });
}

/** Removal revokes every approved snapshot in the same append that removes the marketplace. */
function decideRemove({ data, meta }: RemoveMarketplace, state: Known): Decision<Event> {
  const approved = [...state.snapshots.snapshots.values()].filter((s) => s.state === 'approved');
  const reason = `marketplace removed: ${data.reason}`;
  return accept<Event>(
    ...approved.map((s): Event => ({
      type: 'snapshot-revoked',
      data: {
        ...homeOf(state),
        snapshotId: s.snapshotId,
        sha: s.sha,
        reason,
        administrative: true,
        revokedAt: meta.at,
        revokedBy: meta.principal,
      },
    })),
    ...(data.pushScopeTokenIds.length === 0
      ? []
      : [
          {
            type: 'marketplace-push-scopes-removed' as const,
            data: { marketplaceId: state.marketplaceId, name: state.name, tokenIds: data.pushScopeTokenIds },
          },
        ]),
    {
      type: 'marketplace-removed',
      data: {
        marketplaceId: state.marketplaceId,
        name: state.name,
        reason: data.reason,
        removedAt: meta.at,
        removedBy: meta.principal,
        withdrawnSnapshotIds: approved.map((s) => s.snapshotId),
      },
    },
  );
}

function decideRecordIngest({ data, meta }: RecordIngest, state: Known): Decision<Event> {
  const base = homeOf(state);
  const existing = state.snapshots.captured.get(data.sha);
  const unresolved = data.unresolved ?? [];
  const ingested = (snapshotId: number, created: boolean): Event => ({
    type: 'ingest-succeeded',
    data: { ...base, at: meta.at, snapshotId, sha: data.sha, created, trigger: data.trigger },
  });
  // Ingesting a captured commit creates no second snapshot.
  if (existing !== undefined) return accept(ingested(existing, false));
  return accept<Event>(
    {
      type: 'snapshot-captured',
      data: {
        ...base,
        snapshotId: data.snapshotId,
        sha: data.sha,
        upstreamSha: data.upstreamSha,
        state: data.violation === null ? 'held' : 'rejected',
        violation: data.violation,
        capturedAt: meta.at,
        ingestedBy: meta.principal,
        trigger: data.trigger,
        committedAt: data.committedAt,
        description: data.description,
        unresolved,
        leftOut: data.leftOut ?? [],
      },
    },
    // One ledger entry per withheld plugin, with the capture that withholds it.
    ...unresolved.map(({ plugin, source, reason, nextStep }): Event => ({
      type: 'plugin-withheld',
      data: { ...base, snapshotId: data.snapshotId, sha: data.sha, plugin, source, reason, nextStep },
    })),
    ingested(data.snapshotId, true),
  );
}

function decideSyncMode({ data }: ChangeSyncMode, state: Known): Decision<Event> {
  const { mode } = data;
  // PUT is idempotent: the mode it already has changes nothing (and issues no new secret).
  if (mode === state.syncMode) return accept();
  return accept({
    type: 'sync-mode-changed',
    data: {
      marketplaceId: state.marketplaceId,
      name: state.name,
      mode,
      previousMode: state.syncMode,
      sealedWebhookSecret: mode === 'webhook' ? data.sealedWebhookSecret : null,
    },
  });
}

function decideSelection({ data, meta }: SetPluginSelection, state: Known): Decision<Event> {
  const checked = checkSelection(data.include, data.exclude);
  if (!checked.ok) return refuse({ code: 'invalid-selection', detail: checked.problems.join('; ') });
  // PUT is idempotent: the selection it already has changes nothing and records nothing.
  if (sameSelection(checked.selection, state.selection)) return accept();
  return accept({
    type: 'marketplace-selection-set',
    data: {
      marketplaceId: state.marketplaceId,
      name: state.name,
      include: checked.selection?.include ?? [],
      exclude: checked.selection?.exclude ?? [],
      setAt: meta.at,
      setBy: meta.principal,
    },
  });
}

const deletionCommands: ReadonlySet<string> = new Set<DeletionCommand['type']>([
  'soft-delete-snapshot',
  'soft-delete-snapshots',
  'restore-snapshot',
  'purge-snapshot',
]);
const isDeletion = (command: MarketplaceCommand): command is DeletionCommand => deletionCommands.has(command.type);

export const marketplaceDecider: Decider<MarketplaceState, MarketplaceCommand, Event> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'marketplace-registered':
        return {
          status: 'live',
          marketplaceId: event.data.marketplaceId,
          name: event.data.name,
          snapshots: noSnapshots,
          syncMode: 'on-demand',
          selection: null,
        };
      case 'sync-mode-changed':
        return state.status === 'none' ? state : { ...state, syncMode: event.data.mode };
      case 'marketplace-selection-set': {
        if (state.status === 'none') return state;
        const { include, exclude } = event.data;
        return { ...state, selection: include.length === 0 && exclude.length === 0 ? null : { include, exclude } };
      }
      case 'marketplace-removed':
        return state.status === 'none' ? state : { ...state, status: 'removed' };
      case 'snapshot-captured':
      case 'plugin-withheld':
      case 'snapshot-approved':
      case 'snapshot-rejected':
      case 'snapshot-revoked':
      case 'ingest-succeeded':
      case 'ingest-failed':
      case 'policy-denied':
      case 'snapshot-soft-deleted':
      case 'snapshot-restored':
      case 'snapshot-purged':
        return state.status === 'none' ? state : { ...state, snapshots: evolveSnapshots(state.snapshots, event) };
      case 'marketplace-push-scopes-removed':
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'register-marketplace') return decideRegister(command, state);
    // Deliberately before the live check: a removed marketplace's snapshots (withdrawn rows among them)
    // are deleted, restored and purged like any other (docs/retention.md).
    if (isDeletion(command)) {
      if (state.status === 'none') return refuse({ code: 'snapshot-not-found', detail: 'no such marketplace' });
      return decideDeletion(command, (id) => deletionSubject(state.snapshots, id), homeOf(state));
    }
    if (state.status !== 'live')
      return refuse({ code: 'marketplace-not-found', detail: 'no live marketplace has that name' });
    switch (command.type) {
      case 'remove-marketplace':
        return decideRemove(command, state);
      case 'record-ingest':
        return decideRecordIngest(command, state);
      case 'record-ingest-failure':
        return accept({ type: 'ingest-failed', data: { ...homeOf(state), at: command.meta.at, ...command.data } });
      case 'approve-snapshot':
      case 'reject-snapshot':
      case 'revoke-snapshot':
        return decideSnapshot(command, state.snapshots, homeOf(state));
      case 'change-sync-mode':
        return decideSyncMode(command, state);
      case 'set-plugin-selection':
        return decideSelection(command, state);
    }
  },
};
