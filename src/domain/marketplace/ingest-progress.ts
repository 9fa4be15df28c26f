// How far one ingest has come, and which waiting ingests start when a slot frees. Pure: the gateway
// keeps the state in memory (application/marketplaces/ingest-registry.ts) and feeds it what the steps report.
import type { IngestTrigger } from '../snapshot/snapshot.events.ts';

/** The steps of an ingest in the order they run; `queued` until it has a slot. */
export const ingestPhases = ['queued', 'fetch', 'resolve', 'compose', 'capture', 'tree', 'vetting'] as const;
export type IngestPhase = (typeof ingestPhases)[number];

/** So many of so many. */
export type Tally = Readonly<{ done: number; total: number }>;

export type IngestProgress = Readonly<{
  phase: IngestPhase;
  /** When it left the queue; null while it waits. */
  startedAt: string | null;
  /** resolve: external plugin sources resolved (or given up) of those the snapshot keeps. */
  externals: Tally | null;
  /** tree: files of the captured tree read of all its files. */
  files: Tally | null;
  /** vetting: connectors finished of those enabled, and the one running now (null between and after). */
  connectors: (Tally & Readonly<{ current: string | null }>) | null;
  /** The snapshot once it is recorded (capture). */
  snapshotId: number | null;
}>;

/** What a step of a running ingest tells. */
export type ProgressReport =
  | Readonly<{ type: 'phase'; phase: Exclude<IngestPhase, 'queued'> }>
  | Readonly<{ type: 'externals'; done: number; total: number }>
  | Readonly<{ type: 'files'; done: number; total: number }>
  | Readonly<{ type: 'connectors'; done: number; total: number; current: string | null }>
  | Readonly<{ type: 'captured'; snapshotId: number }>;

export type ReportProgress = (report: ProgressReport) => void;

export const queuedProgress: IngestProgress = {
  phase: 'queued',
  startedAt: null,
  externals: null,
  files: null,
  connectors: null,
  snapshotId: null,
};

/** Out of the queue: fetching from `at` on. */
export const started = (progress: IngestProgress, at: string): IngestProgress =>
  progress.startedAt === null ? { ...progress, phase: 'fetch', startedAt: at } : progress;

const tally = (done: number, total: number): Tally => {
  const whole = Math.max(0, Math.floor(total));
  return { done: Math.min(whole, Math.max(0, Math.floor(done))), total: whole };
};

const rank = (phase: IngestPhase) => ingestPhases.indexOf(phase);

/**
 * The progress after a report. Phases only move forward (a late report of an earlier step does not
 * move it back); counts are clamped to 0..total; a count reported before its phase is entered moves
 * the phase to it.
 */
export function advanced(progress: IngestProgress, report: ProgressReport): IngestProgress {
  const reach = (phase: IngestPhase): IngestPhase => (rank(phase) > rank(progress.phase) ? phase : progress.phase);
  switch (report.type) {
    case 'phase':
      return { ...progress, phase: reach(report.phase) };
    case 'externals':
      return { ...progress, phase: reach('resolve'), externals: tally(report.done, report.total) };
    case 'files':
      return { ...progress, phase: reach('tree'), files: tally(report.done, report.total) };
    case 'connectors':
      return {
        ...progress,
        phase: reach('vetting'),
        connectors: { ...tally(report.done, report.total), current: report.current },
      };
    case 'captured':
      return { ...progress, snapshotId: report.snapshotId };
  }
}

/** A waiting ingest as the order sees it. */
export type Waiting = Readonly<{ marketplaceId: number }>;

/**
 * Which waiting ingests start now, oldest first: at most `free` of them, and never a marketplace that
 * is being ingested or is picked already (it keeps its place until its own ingest ends). The others
 * keep their order.
 */
export function startable<W extends Waiting>(waiting: readonly W[], running: ReadonlySet<number>, free: number): W[] {
  const picked: W[] = [];
  const busy = new Set(running);
  for (const entry of waiting) {
    if (picked.length >= free) break;
    if (busy.has(entry.marketplaceId)) continue;
    busy.add(entry.marketplaceId);
    picked.push(entry);
  }
  return picked;
}

/** A request nobody waits on (webhook, schedule) joins a waiting one of the same marketplace nobody waits on either. */
export type Request = Readonly<{ marketplaceId: number; background: boolean; trigger: IngestTrigger }>;

/** The waiting ingest `request` folds into, or undefined: it waits on its own. */
export const foldsInto = <W extends Request>(waiting: readonly W[], request: Request): W | undefined =>
  request.background ? waiting.find((w) => w.background && w.marketplaceId === request.marketplaceId) : undefined;
