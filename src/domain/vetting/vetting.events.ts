import type { Event, Instant } from '../kernel/decider.ts';
import type { Finding, VerdictState } from '../kernel/findings.ts';

export const vettingTriggers = ['ingestion', 'revet-manual', 'revet-scheduled'] as const;
export type VettingTrigger = (typeof vettingTriggers)[number];

export const chainModes = ['run-all', 'stop-on-failure'] as const;
export type ChainMode = (typeof chainModes)[number];

export type RecordedOutcome = 'CLEAR' | 'BLOCKED';

/** One connector's verdict in a run (docs/vetting.md). */
export type Verdict = Readonly<{
  verdictId: number;
  connector: string;
  position: number;
  state: VerdictState;
  detail: string | null;
  reportUrl: string | null;
  findings: readonly Finding[];
}>;

export type RunRef = {
  runId: number;
  snapshotId: number;
  marketplaceId: number;
  marketplace: string;
  sha: string;
  trigger: VettingTrigger;
};

/** Ledger: one per connector on an ingestion run; on a re-vet only where the verdict changed. */
export type VettingVerdictRecorded = Event<
  'vetting-verdict',
  RunRef & { verdict: Verdict; previousState: VerdictState | null }
>;

/** Once per run, carrying every verdict: the read model of the run is built from this event alone. */
export type VettingCompleted = Event<
  'vetting-completed',
  RunRef & {
    outcome: RecordedOutcome;
    startedAt: Instant;
    finishedAt: Instant;
    /** The connectors that ran, in order. */
    chain: readonly string[];
    mode: ChainMode;
    verdicts: readonly Verdict[];
  }
>;

export const vetterScopes = ['global', 'marketplace'] as const;
export type VetterScope = (typeof vetterScopes)[number];

export type VetterToggled = Event<
  'vetter-toggled',
  {
    vetter: string;
    scope: VetterScope;
    marketplaceId: number | null;
    marketplace: string | null;
    enabled: boolean;
    reason: string;
  }
>;
export type ChainModeChanged = Event<'vetting-chain-mode-changed', { mode: ChainMode; reason: string }>;
export type ChainOrderChanged = Event<'vetting-chain-order-changed', { order: readonly string[]; reason: string }>;

export const waiverScopes = ['SNAPSHOT', 'PATH'] as const;
export type WaiverScope = (typeof waiverScopes)[number];

export type WaiverCreated = Event<
  'waiver-created',
  {
    waiverId: number;
    marketplaceId: number;
    marketplace: string;
    snapshotId: number;
    ruleId: string;
    scope: WaiverScope;
    scopeValue: string;
    justification: string;
    approvedBy: string;
    createdAt: Instant;
    expiresAt: Instant;
  }
>;
export type WaiverRevoked = Event<
  'waiver-revoked',
  {
    waiverId: number;
    marketplaceId: number;
    marketplace: string;
    ruleId: string;
    revokedAt: Instant;
    revokedBy: string;
  }
>;
/** The periodic sweep noticed a waiver past its expiresAt (it stopped counting at that instant). */
export type WaiverLapsed = Event<
  'waiver-lapsed',
  { waiverId: number; marketplaceId: number; marketplace: string; ruleId: string; expiresAt: Instant }
>;

export type Affected = Readonly<{ principal: string; fetches: number; lastFetch: Instant }>;
export type Uncovered = Readonly<{
  connector: string;
  ruleId: string;
  location: string;
  severity: string;
  message: string;
}>;
export type Classification = 'CLEAR' | 'VIOLATION' | 'INCONCLUSIVE';

type RevetData = RunRef & { mode: 'WARN' | 'ENFORCE'; outcome: string; uncovered: readonly Uncovered[] };
export type RevetClear = Event<'revet-clear', RevetData>;
export type RevetInconclusive = Event<'revet-inconclusive', RevetData>;
export type RevetViolation = Event<'revet-violation', RevetData & { revoked: boolean }>;
/** Who received the violating snapshot through the facade (one event listing them). */
export type RevetViolationAffected = Event<'revet-violation-affected', RunRef & { affected: readonly Affected[] }>;

export type VettingEvent =
  | VettingVerdictRecorded
  | VettingCompleted
  | VetterToggled
  | ChainModeChanged
  | ChainOrderChanged
  | WaiverCreated
  | WaiverRevoked
  | WaiverLapsed
  | RevetClear
  | RevetInconclusive
  | RevetViolation
  | RevetViolationAffected;
