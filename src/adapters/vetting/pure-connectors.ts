// The connectors that are pure functions of the tree (manifest, mcp, instructions), run in a vetting
// worker: the chain starts them together, as it starts, in one task that carries the tree once, and
// each connector answers from that task's reports when its turn comes. A small tree (under 256 KiB of
// text, a few milliseconds of work) is scanned on the calling thread instead: shipping it costs more.
import type { ScanInput, ScanReport } from '../../domain/vetting/findings.ts';
import { chainEnded, type Connector } from './connector.ts';
import { pureConnectors } from './pure-scanners.ts';
import { givenUp, scanInWorker, type ScanOutcome } from './vetting-pool.ts';

const inlineBytes = 256 * 1024;

type Session = {
  /** The connectors the task runs: those prepared before it started, or the one that started it. */
  names: Set<string>;
  reports: Promise<Readonly<Record<string, ScanOutcome>>> | null;
  cancel: AbortController;
};

const textBytes = (input: ScanInput): number => input.files.reduce((sum, f) => sum + (f.text?.length ?? 0), 0);

export function workerPureConnectors(): Connector[] {
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
  const reportsOf = (input: ScanInput, session: Session) => {
    session.reports ??= scanInWorker(input, [...session.names], session.cancel.signal);
    return session.reports;
  };
  return pureConnectors.map((c): Connector => ({
    name: c.name,
    description: c.description,
    prepare: (input, signal) => {
      if (textBytes(input) < inlineBytes) return;
      const session = sessionOf(input, signal);
      session.names.add(c.name);
      // Started once every connector of the chain has been prepared.
      queueMicrotask(() => void reportsOf(input, session).catch(() => {}));
    },
    scan: async (input, _subject, signal): Promise<ScanReport> => {
      if (textBytes(input) < inlineBytes) {
        await Promise.resolve(); // the chain's timer can still be seen
        return c.scan(input);
      }
      const session = sessionOf(input, signal);
      if (session.reports === null) session.names.add(c.name);
      const report = (await reportsOf(input, session))[c.name];
      if (report === undefined) return c.scan(input); // the task had started without this connector
      if ('error' in report) throw new Error(report.error);
      return report;
    },
  }));
}
