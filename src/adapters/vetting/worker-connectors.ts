// The connectors that read nothing but the tree (manifest, secrets, hooks, mcp, instructions, license) run
// in the vetting workers, so that the event loop never holds a large tree's vetting. The chain prepares
// them together as it starts, and one task carries the tree to a worker once: that worker names the
// scripts the hooks connector must have read, then runs the others (worker-scanners.ts) in chain order,
// sending each report as soon as it is made; meanwhile the named scripts are read in the pool's workers,
// and the hooks connector's walk over those readings runs on the worker that keeps the tree. Each
// connector answers from its own report when its turn comes. A small tree (under 256 KiB of text, a few
// milliseconds of work) is vetted on the calling thread instead: shipping it costs more.
import { hooksConnector as hooksDescribed, hooksScanner } from '../../domain/vetting/connectors/hooks.connector.ts';
import type { ScanInput, ScanReport } from '../../domain/kernel/findings.ts';
import { chainEnded, type Connector } from './connector.ts';
import { readScriptsOf } from './script-reading.ts';
import { analyseInWorkers, givenUp, scanTreeInWorker, type ScanOutcome, type TreeScan } from './vetting-pool.ts';
import { treeScanners, type TreeScanner } from './worker-scanners.ts';

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
  /** The task and each connector's report, from the moment it starts. */
  started: Readonly<{ scan: TreeScan; reports: Map<string, Expected> }> | null;
  cancel: AbortController;
};

const sizes = new WeakMap<ScanInput, number>();
const small = (input: ScanInput): boolean => {
  let size = sizes.get(input);
  if (size === undefined) {
    size = input.files.reduce((sum, f) => sum + (f.text?.length ?? 0), 0);
    sizes.set(input, size);
  }
  return size < inlineBytes;
};

const hooksName = hooksDescribed.name;

/** The hooks connector on the calling thread (its scripts still read in the workers when there are many). */
const hooksHere: TreeScanner = {
  ...hooksDescribed,
  scan: async (input, signal) => hooksScanner(await readScriptsOf(input, signal))(input),
};

export function workerConnectors(): Connector[] {
  const sessions = new WeakMap<ScanInput, Session>();
  const sessionOf = (input: ScanInput, signal: AbortSignal): Session => {
    let session = sessions.get(input);
    if (session === undefined) {
      const created: Session = { names: new Set(), started: null, cancel: new AbortController() };
      // However the chain ends, the worker need not keep the tree any longer.
      created.cancel.signal.addEventListener('abort', () => created.started?.scan.forget(), { once: true });
      sessions.set(input, (session = created));
    }
    // The chain's end gives up work nobody will read; a scan's signal (the chain's timeout) stops it.
    const { cancel } = session;
    const abort = () => cancel.abort(signal.reason === chainEnded ? givenUp : signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return session;
  };
  const startedOf = (input: ScanInput, session: Session) => {
    if (session.started !== null) return session.started;
    const names = [...session.names].filter((name) => name !== hooksName);
    const reports = new Map(names.map((name) => [name, expected()]));
    const scan = scanTreeInWorker(
      input,
      names,
      { keep: session.names.has(hooksName), onReport: (name, outcome) => reports.get(name)?.resolve(outcome) },
      session.cancel.signal,
    );
    const unanswered = (error: unknown) => {
      for (const report of reports.values()) report.reject(error);
    };
    // A report the worker never sent (it cannot, short of a bug) fails that connector, not the wait.
    scan.done.then(() => unanswered(new Error('the vetting worker sent no report')), unanswered);
    session.started = { scan, reports };
    return session.started;
  };
  /** The hooks connector's report: the scripts the worker named, read in the pool, then its walk there. */
  const hooksReport = async (input: ScanInput, scan: TreeScan, signal: AbortSignal): Promise<ScanReport> => {
    const places = await scan.places;
    const jobs = places.map(({ path, root }) => {
      const file = input.byPath.get(path);
      if (file?.text == null) throw new Error(`the vetting worker named ${path}, which has no text`);
      return { file: { ...file, text: file.text }, root };
    });
    const analyses = await analyseInWorkers(jobs, [...input.byPath.keys()], signal);
    return scan.walk(places, analyses, signal);
  };
  return [...treeScanners.slice(0, 2), hooksHere, ...treeScanners.slice(2)].map((c): Connector => ({
    name: c.name,
    description: c.description,
    prepare: (input, signal) => {
      if (small(input)) return;
      const session = sessionOf(input, signal);
      session.names.add(c.name);
      // Started once every connector of the chain has been prepared.
      queueMicrotask(() => void startedOf(input, session));
    },
    scan: async (input, _subject, signal): Promise<ScanReport> => {
      if (small(input)) {
        await Promise.resolve(); // the chain's timer can still be seen
        return c.scan(input, signal);
      }
      const session = sessionOf(input, signal);
      if (session.started === null) session.names.add(c.name);
      const { scan, reports } = startedOf(input, session);
      // Not prepared before the task started: this connector runs on the calling thread.
      if (!session.names.has(c.name)) return c.scan(input, signal);
      if (c.name === hooksName) return hooksReport(input, scan, session.cancel.signal);
      const outcome = await reports.get(c.name)!.promise;
      if ('error' in outcome) throw new Error(outcome.error);
      return outcome;
    },
  }));
}
