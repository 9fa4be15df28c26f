import type { ScanInput } from '../../domain/kernel/findings.ts';
import { stateOf } from '../../domain/kernel/findings.ts';
import type { ChainMode, Verdict } from '../../domain/vetting/vetting.events.ts';
import { chainEnded, VettingInterrupted, type Connector, type ConnectorResult, type ScanSubject } from './connector.ts';

/** A connector's verdict before the run's ids are given (the command allocates them). */
export type DraftVerdict = Omit<Verdict, 'verdictId'> & Readonly<{ elapsedMs: number }>;

export type ChainOptions = Readonly<{
  mode: ChainMode;
  timeoutMs: number;
  onVerdict?: (verdict: DraftVerdict) => void;
}>;

class Timeout extends Error {}

async function withTimeout(
  connector: Connector,
  input: ScanInput,
  subject: ScanSubject,
  timeoutMs: number,
): Promise<ConnectorResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Timeout());
    }, timeoutMs);
  });
  try {
    return await Promise.race([connector.scan(input, subject, controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the connectors in order over one pinned tree. A connector past the timeout, or one that
 * throws, records ERROR (which blocks). In `stop-on-failure` mode the chain stops after the first
 * FAIL or ERROR; the connectors after it do not run and have no verdict.
 */
export async function runChain(
  connectors: readonly Connector[],
  input: ScanInput,
  subject: ScanSubject,
  options: ChainOptions,
): Promise<DraftVerdict[]> {
  const verdicts: DraftVerdict[] = [];
  const chain = new AbortController();
  try {
    for (const connector of connectors) connector.prepare?.(input, chain.signal);
    await runInOrder(connectors, input, subject, options, verdicts);
  } finally {
    chain.abort(chainEnded); // work prepared for a connector that never ran is given up
  }
  return verdicts;
}

async function runInOrder(
  connectors: readonly Connector[],
  input: ScanInput,
  subject: ScanSubject,
  options: ChainOptions,
  verdicts: DraftVerdict[],
): Promise<void> {
  for (const [position, connector] of connectors.entries()) {
    const started = performance.now();
    let verdict: DraftVerdict;
    try {
      const result = await withTimeout(connector, input, subject, options.timeoutMs);
      const elapsedMs = performance.now() - started;
      // A synchronous scanner cannot be interrupted; one that overran is held to the limit all the same.
      if (elapsedMs > options.timeoutMs) throw new Timeout();
      verdict = {
        connector: connector.name,
        position,
        state: result.pending ? 'PENDING' : stateOf(result.findings),
        detail: result.detail,
        reportUrl: result.reportUrl ?? null,
        findings: result.findings,
        elapsedMs,
      };
    } catch (error) {
      if (error instanceof VettingInterrupted) throw error;
      const detail =
        error instanceof Timeout
          ? `timed out after ${options.timeoutMs} ms (gateway.vetting.timeout)`
          : `connector failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
      verdict = {
        connector: connector.name,
        position,
        state: 'ERROR',
        detail,
        reportUrl: null,
        findings: [],
        elapsedMs: performance.now() - started,
      };
    }
    verdicts.push(verdict);
    options.onVerdict?.(verdict);
    if (options.mode === 'stop-on-failure' && (verdict.state === 'FAIL' || verdict.state === 'ERROR')) break;
  }
}
