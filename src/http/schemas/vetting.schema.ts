import { Type, type Static } from 'typebox';
import { severities, verdictStates } from '../../domain/kernel/findings.ts';
import { waiverActive } from '../../domain/vetting/outcome.ts';
import { chainModes, vettingTriggers, waiverScopes } from '../../domain/vetting/vetting.events.ts';
import type { WaiverRecord } from '../../application/vetting/vetting-reads.use-case.ts';
import { literalUnion, NullableTimestamp, Timestamp } from './common.schema.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const EffectiveOutcome = literalUnion(['CLEAR', 'CLEAR_WITH_WAIVERS', 'BLOCKED'] as const);
const RecordedOutcome = literalUnion(['CLEAR', 'BLOCKED'] as const);

export const FindingView = Type.Object({
  id: Type.String({ description: 'Stable rule id, the one a waiver names' }),
  severity: literalUnion(severities),
  location: Type.String({ description: '`path:line`' }),
  message: Type.String(),
});

export const VerdictView = Type.Object({
  verdictId: Type.Integer(),
  connector: Type.String(),
  position: Type.Integer({ minimum: 0, description: 'Chain order, from 0' }),
  state: literalUnion(verdictStates),
  detail: NullableString,
  reportUrl: NullableString,
  findings: Type.Array(FindingView),
});

export const RunView = Type.Object({
  runId: Type.Integer(),
  snapshotId: Type.Integer(),
  trigger: literalUnion(vettingTriggers),
  outcome: RecordedOutcome,
  startedAt: Timestamp,
  finishedAt: Timestamp,
  verdicts: Type.Array(VerdictView),
});

export const UncoveredView = Type.Object({
  connector: Type.String(),
  ruleId: Type.String(),
  location: Type.String(),
  severity: Type.String(),
  message: Type.String(),
});

export const WaiverView = Type.Object({
  id: Type.Integer(),
  marketplace: Type.String(),
  ruleId: Type.String(),
  scope: literalUnion(waiverScopes),
  scopeValue: Type.String({ description: 'The commit SHA (SNAPSHOT) or the repository path (PATH)' }),
  justification: Type.String(),
  approvedBy: Type.String(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  revokedAt: NullableTimestamp,
  revokedBy: NullableString,
  active: Type.Boolean({ description: 'False once revoked or past expiresAt' }),
});
export type WaiverView = Static<typeof WaiverView>;

export const waiverView = (w: WaiverRecord, at: string): WaiverView => ({
  id: w.waiverId,
  marketplace: w.marketplace,
  ruleId: w.ruleId,
  scope: w.scope,
  scopeValue: w.scopeValue,
  justification: w.justification,
  approvedBy: w.approvedBy,
  createdAt: w.createdAt,
  expiresAt: w.expiresAt,
  revokedAt: w.revokedAt,
  revokedBy: w.revokedBy,
  active: waiverActive(w, at),
});

export const ChainLinkView = Type.Object({
  name: Type.String(),
  order: Type.Integer({ minimum: 0 }),
  description: Type.String(),
  enabled: Type.Boolean({ description: 'Whether it runs for this marketplace (or globally)' }),
  source: literalUnion(['global', 'marketplace'] as const),
});

export const VettingReport = Type.Object({
  snapshotId: Type.Integer(),
  /** Effective outcome that gates approval, recomputed on every request from the run and the waivers active now. */
  outcome: EffectiveOutcome,
  /** What the connectors concluded; never rewritten by a waiver. */
  recordedOutcome: RecordedOutcome,
  run: Type.Union([RunView, Type.Null()]),
  suppressed: Type.Array(
    Type.Object({
      connector: Type.String(),
      ruleId: Type.String(),
      location: Type.String(),
      waiverId: Type.Integer(),
      approvedBy: Type.String(),
      expiresAt: Timestamp,
    }),
  ),
  uncovered: Type.Array(UncoveredView),
  waivers: Type.Array(WaiverView),
  connectors: Type.Array(ChainLinkView),
});

export const AffectedView = Type.Object({ principal: Type.String(), fetches: Type.Integer(), lastFetch: Timestamp });

export const RevetView = Type.Object({
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  sha: Type.String(),
  runId: Type.Integer(),
  classification: literalUnion(['CLEAR', 'VIOLATION', 'INCONCLUSIVE'] as const),
  outcome: EffectiveOutcome,
  revoked: Type.Boolean(),
  mode: literalUnion(['WARN', 'ENFORCE'] as const),
  uncovered: Type.Array(UncoveredView),
  affected: Type.Array(AffectedView),
});

export const ChainSettingsView = Type.Object({
  mode: literalUnion(chainModes),
  order: Type.Array(Type.String(), { description: 'Every vetter, in the order the chain runs them' }),
  connectors: Type.Array(ChainLinkView),
});

export const ToggleView = Type.Object({
  vetter: Type.String(),
  scope: literalUnion(['global', 'marketplace'] as const),
  marketplace: NullableString,
  enabled: Type.Boolean(),
  reason: Type.String(),
  changedBy: Type.String(),
  changedAt: Timestamp,
});
