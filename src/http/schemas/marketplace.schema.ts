import { Type, type Static } from 'typebox';
import { forgeOf } from '../../domain/kernel/forge.ts';
import { snapshotStates } from '../../domain/kernel/snapshot-state.ts';
import type {
  MarketplaceRecord,
  MarketplaceSelection,
  SnapshotRecord,
} from '../../application/marketplaces/marketplace-reads.use-case.ts';
import { literalUnion, NullableTimestamp, Timestamp } from './common.schema.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** A plugin the snapshot withholds: its external source could not be read (docs/marketplaces.md). */
export const UnresolvedSourceView = Type.Object(
  {
    plugin: Type.String(),
    source: Type.Record(Type.String(), Type.Unknown(), { description: 'the source as written in the manifest' }),
    reason: Type.String(),
    nextStep: Type.String(),
  },
  { additionalProperties: false },
);

export const SnapshotView = Type.Object({
  id: Type.Integer(),
  marketplaceId: Type.Integer(),
  sha: Type.String(),
  upstreamSha: Type.String(),
  state: literalUnion(snapshotStates),
  violation: NullableString,
  createdAt: Timestamp,
  ingestedBy: NullableString,
  decidedBy: NullableString,
  decidedAt: NullableTimestamp,
  decisionReason: Type.Optional(
    Type.String({
      description:
        'Why it was decided as it stands, when a reason was given: the reviewer’s reason for a rejection, or ' +
        'the administrator’s for approving over a BLOCKED vetting outcome. Absent otherwise; a snapshot captured ' +
        'as rejected at ingest (decidedBy null) carries its reason in violation.',
    }),
  ),
  revokedBy: Type.Optional(Type.String()),
  revokedAt: Type.Optional(Timestamp),
  deleted_at: Type.Optional(Timestamp),
  deleted_reason: Type.Optional(Type.String()),
  purgeAfter: Type.Optional(Timestamp),
  unresolved: Type.Array(UnresolvedSourceView, {
    description:
      'Plugins withheld from the served marketplace.json because their external source could not be read ' +
      '(gateway.ingest.external-sources withhold-unresolved); empty when every source resolved.',
  }),
  leftOut: Type.Array(Type.Object({ plugin: Type.String(), reason: Type.String() }), {
    description:
      "Plugins of the upstream manifest the marketplace's selection left out of this snapshot " +
      '(PUT /api/v1/marketplaces/{name}/selection): not resolved, vetted, composed or served; empty without a selection.',
  }),
});
export type SnapshotView = Static<typeof SnapshotView>;

export function snapshotView(s: SnapshotRecord): SnapshotView {
  return {
    id: s.id,
    marketplaceId: s.marketplaceId,
    sha: s.sha,
    upstreamSha: s.upstreamSha,
    state: s.state,
    violation: s.violation,
    createdAt: s.createdAt,
    ingestedBy: s.ingestedBy,
    decidedBy: s.decidedBy,
    decidedAt: s.decidedAt,
    ...((s.state === 'approved' || s.state === 'rejected') && s.decisionReason
      ? { decisionReason: s.decisionReason }
      : {}),
    unresolved: s.unresolved.map(({ plugin, source, reason, nextStep }) => ({ plugin, source, reason, nextStep })),
    leftOut: s.leftOut.map(({ plugin, reason }) => ({ plugin, reason })),
    // revokedBy/revokedAt present on a revoked snapshot; deletion marks set while soft-deleted.
    ...(s.state === 'revoked' && s.revokedBy !== null && s.revokedAt !== null
      ? { revokedBy: s.revokedBy, revokedAt: s.revokedAt }
      : {}),
    ...(s.deletedAt !== null
      ? { deleted_at: s.deletedAt, deleted_reason: s.deletedReason ?? '', purgeAfter: s.purgeAfter ?? s.deletedAt }
      : {}),
  };
}

/** Curation (docs/marketplaces.md, Selection): the plugins an admin chose to serve; null serves every plugin. */
export const SelectionView = Type.Union(
  [
    Type.Object({
      include: Type.Array(Type.String(), { description: 'plugin-name globs; empty means every plugin' }),
      exclude: Type.Array(Type.String(), { description: 'plugin-name globs left out after include' }),
      setAt: Timestamp,
      setBy: Type.String(),
    }),
    Type.Null(),
  ],
  { description: 'which plugins are served from the next ingest on (PUT /api/v1/marketplaces/{name}/selection)' },
);

export type SelectionView = Static<typeof SelectionView>;

export const selectionView = (s: MarketplaceSelection | null): SelectionView =>
  s === null ? null : { include: [...s.include], exclude: [...s.exclude], setAt: s.setAt, setBy: s.setBy };

export const MarketplaceView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: NullableString,
  createdAt: Timestamp,
  registeredBy: NullableString,
  forge: Type.String(),
  forgeProject: Type.String(),
  description: Type.String(),
  upstreamUpdatedAt: NullableTimestamp,
  servedSha: NullableString,
  lastIngestAt: NullableTimestamp,
  lastIngestOutcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Null()]),
  lastIngestReason: NullableString,
  syncMode: literalUnion(['on-demand', 'scheduled', 'webhook'] as const),
  selection: SelectionView,
  snapshots: Type.Array(SnapshotView),
});
export type MarketplaceView = Static<typeof MarketplaceView>;

export function marketplaceView(
  m: MarketplaceRecord,
  servedSha: string | null,
  snapshots: readonly SnapshotRecord[],
): MarketplaceView {
  const { forge, forgeProject } = forgeOf(m.url);
  return {
    id: m.id,
    name: m.name,
    url: m.url,
    createdAt: m.createdAt,
    registeredBy: m.registeredBy,
    forge,
    forgeProject,
    description: m.description ?? '',
    upstreamUpdatedAt: m.upstreamUpdatedAt,
    servedSha,
    lastIngestAt: m.lastIngestAt,
    lastIngestOutcome: m.lastIngestOutcome,
    lastIngestReason: m.lastIngestReason,
    syncMode: m.syncMode,
    selection: selectionView(m.selection),
    snapshots: snapshots.filter((s) => s.marketplaceId === m.id).map(snapshotView),
  };
}
