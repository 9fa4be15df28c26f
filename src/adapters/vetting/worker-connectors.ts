// The connectors that read the tree alone (manifest, secrets, mcp, instructions, license:
// worker-scanners.ts) run in a vetting worker: the chain starts them together, as it starts, in one task
// that carries the tree once; the worker sends each report as soon as it is made, and each connector
// answers from its own report when its turn comes. A small tree (under 256 KiB of text, a few
// milliseconds of work) is scanned on the calling thread instead: shipping it costs more.
import type { ScanInput, ScanReport } from '../../domain/vetting/findings.ts';
import { chainEnded, type Connector } from './connector.ts';
import { givenUp, scanInWorker, type ScanOutcome } from './vetting-pool.ts';
import { treeScanners } from './worker-scanners.ts';

const inlineBytes = 256 * 1024;

/** A report to come from the worker. */
type Expected = { promise: Promise<ScanOutcome>; resolve(outcome: ScanOutcome): void; reject(error: unknown): void };

const expected = (): Expected => {
  let resolve: (outcome: ScanOutcome) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<ScanOutcome>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  promise.catch(() => {}); // a report nobody asks for (the chain stopped before it) fails unread
  return { promise, resolve, reject };
};

type Session = {
  /** The connectors the task runs: those prepared before it started, or the one that started it. */
  names: Set<string>;
  /** Each connector's report, from the moment the task starts. */
  reports: Map<string, Expected> | null;
  cancel: AbortController;
};

const sizes = new WeakMap<ScanInput, number>();
const textBytes = (input: ScanInput): number => {
  let size = sizes.get(input);
  if (size === undefined) {
    size = input.files.reduce((sum, f) => sum + (f.text?.length ?? 0), 0);
    sizes.set(input, size);
  }
  return size;
};

export function workerConnectors(): Connector[] {
  const sessions = new WeakMap<ScanInput, Session>();
  const sessionOf = (input: ScanInput, signal: AbortSignal): Session => {
    let session = sessions.get(input);
    if (session === undefined) {
      session = { names: new Set(), reports: null, cancel: new AbortController() };
      sessions.set(input, session);
    }
    // The chain's end gives up work nobody will read; a scan's signal (the chain's timeout) stops it.
    const { cancel } = session;
    const abort = () => cancel.abort(signal.reason === chainEnded ? givenUp : signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return session;
  };
  const reportsOf = (input: ScanInput, session: Session): Map<string, Expected> => {
    if (session.reports !== null) return session.reports;
    const reports = new Map([...session.names].map((name) => [name, expected()]));
    session.reports = reports;
    const unanswered = (error: unknown) => {
      for (const report of reports.values()) report.reject(error);
    };
    scanInWorker(
      input,
      [...session.names],
      (name, outcome) => reports.get(name)?.resolve(outcome),
      session.cancel.signal,
    )
      // A report the worker never sent (it cannot, short of a bug) fails that connector, not the wait.
      .then(() => unanswered(new Error('the vetting worker sent no report')), unanswered);
    return reports;
  };
  return treeScanners.map((c): Connector => ({
    name: c.name,
    description: c.description,
    prepare: (input, signal) => {
      if (textBytes(input) < inlineBytes) return;
      const session = sessionOf(input, signal);
      session.names.add(c.name);
      // Started once every connector of the chain has been prepared.
      queueMicrotask(() => void reportsOf(input, session));
    },
    scan: async (input, _subject, signal): Promise<ScanReport> => {
      if (textBytes(input) < inlineBytes) {
        await Promise.resolve(); // the chain's timer can still be seen
        return c.scan(input, signal);
      }
      const session = sessionOf(input, signal);
      if (session.reports === null) session.names.add(c.name);
      const report = reportsOf(input, session).get(c.name);
      if (report === undefined) return c.scan(input, signal); // the task had started without this connector
      const outcome = await report.promise;
      if ('error' in outcome) throw new Error(outcome.error);
      return outcome;
    },
  }));
}
