import type { Finding, ScanInput } from '../../domain/kernel/findings.ts';

/** Identifies the snapshot being scanned (for connectors that talk to the outside, such as `http`). */
export type ScanSubject = Readonly<{ snapshotId: number; marketplace: string; sha: string }>;

export type ConnectorResult = Readonly<{
  findings: readonly Finding[];
  detail: string | null;
  /** A link to the connector's own report, when it has one. */
  reportUrl?: string | null;
  /** Set only by a connector that has not answered yet (the external scanner): the verdict is PENDING. */
  pending?: boolean;
}>;

/**
 * A vetting connector (the vetting report's `connectors`, docs/vetting.md): name, default order and description; it
 * examines the pinned tree. The chain (chain.ts) enforces gateway.vetting.timeout through `signal` and
 * turns a throw into an ERROR verdict.
 */
export interface Connector {
  readonly name: string;
  readonly description: string;
  scan(input: ScanInput, subject: ScanSubject, signal: AbortSignal): Promise<ConnectorResult>;
  /**
   * Starts, as the chain starts, work the scan of this input will need and that can run beside the
   * connectors before it (off this thread). `signal` aborts when the chain ends, whether or not the scan ran,
   * with the reason `chainEnded`: what is still running may finish, nobody will read it.
   */
  prepare?(input: ScanInput, signal: AbortSignal): void;
}

/** The reason a prepare signal aborts with once the chain has ended. */
export const chainEnded: unique symbol = Symbol('the chain ended');

/**
 * Thrown by a connector when the vetting cannot be judged at all (the worker doing it failed): the chain
 * stops with no verdict, so the snapshot stays unvetted, as after a crash, and is vetted again.
 */
export class VettingInterrupted extends Error {}
