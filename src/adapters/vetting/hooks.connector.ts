// The hooks connector: the domain's scanner (hooks.connector.ts there) over the readings of the tree's
// scripts, which are made in worker threads (script-reading.ts). The chain lets it start that reading
// as the chain starts, so the workers read scripts while the connectors before it run on this thread.
import { hooksConnector as described, hooksScanner } from '../../domain/vetting/connectors/hooks.connector.ts';
import type { ScriptReading } from '../../domain/vetting/connectors/hooks-analysis.ts';
import type { ScanInput } from '../../domain/vetting/findings.ts';
import { chainEnded, type Connector } from './connector.ts';
import { givenUp } from './vetting-pool.ts';
import { readScriptsOf } from './script-reading.ts';

type Reading = Readonly<{ reading: Promise<ScriptReading>; cancel: AbortController }>;

export function hooksConnector(): Connector {
  const started = new WeakMap<ScanInput, Reading>();
  /** The reading of this input's scripts, started once; cancelled when any signal it is tied to aborts. */
  const readingOf = (input: ScanInput, signal: AbortSignal): Reading => {
    let entry = started.get(input);
    if (entry === undefined) {
      const cancel = new AbortController();
      const reading = readScriptsOf(input, cancel.signal);
      reading.catch(() => {}); // the scan that awaits it reports the failure
      entry = { reading, cancel };
      started.set(input, entry);
    }
    // The chain's end gives up work nobody will read; the scan's signal (the chain's timeout) stops it.
    const { cancel } = entry;
    const abort = () => cancel.abort(signal.reason === chainEnded ? givenUp : signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return entry;
  };
  return {
    name: described.name,
    description: described.description,
    prepare: (input, signal) => void readingOf(input, signal),
    scan: async (input, _subject, signal) => hooksScanner(await readingOf(input, signal).reading)(input),
  };
}
