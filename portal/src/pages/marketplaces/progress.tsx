// The marketplace's ingest while it runs or waits (api/ingest-progress.ts), shown as a progress bar with the
// phase and its counts, or the place in the queue.
import type { IngestProgress } from '../../api/ingest-progress';
import { When } from '../../components/ui';

type Phase = IngestProgress['phase'];

const phases: ReadonlyArray<{ phase: Phase; label: string }> = [
  { phase: 'fetch', label: 'Fetching the commit' },
  { phase: 'resolve', label: 'Resolving external plugin sources' },
  { phase: 'compose', label: 'Composing the served commit' },
  { phase: 'capture', label: 'Recording the snapshot' },
  { phase: 'tree', label: 'Reading the files' },
  { phase: 'vetting', label: 'Vetting' },
];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the phase has counted so far, and the bar's value of max (none: the bar moves without a measure). */
function measure(p: IngestProgress): { text: string; done?: number; total?: number } {
  if (p.phase === 'resolve' && p.externals)
    return { text: `${p.externals.done} of ${plural(p.externals.total, 'external source')}`, ...p.externals };
  if (p.phase === 'tree' && p.files)
    return { text: `${p.files.done} of ${plural(p.files.total, 'file')} read`, ...p.files };
  if (p.phase === 'vetting' && p.connectors) {
    const files = p.files ? ` over ${plural(p.files.total, 'file')}` : '';
    const running = p.connectors.current ? `; running ${p.connectors.current}` : '';
    return {
      text: `${p.connectors.done} of ${plural(p.connectors.total, 'connector')} done${files}${running}`,
      ...p.connectors,
    };
  }
  return { text: '' };
}

const triggers: Record<IngestProgress['trigger'], string> = {
  'on-demand': 'on demand',
  scheduled: 'on the schedule',
  webhook: 'by the forge’s webhook',
  push: 'by a push',
};

function Queued({ p }: { p: IngestProgress }) {
  return (
    <>
      <p>
        <strong>Waiting in the queue</strong>: position {p.position}. It starts when an ingest running now ends.
      </p>
      <progress className="mp-progress-bar" aria-labelledby="ingest-progress-title" />
    </>
  );
}

function Running({ p }: { p: IngestProgress }) {
  const step = phases.findIndex((x) => x.phase === p.phase);
  const { text, done, total } = measure(p);
  return (
    <>
      <p>
        <strong>{phases[step]?.label ?? p.phase}</strong>{' '}
        <span className="muted">
          (step {step + 1} of {phases.length})
        </span>
        {text ? `: ${text}` : ''}
      </p>
      {total !== undefined && total > 0 ? (
        <progress className="mp-progress-bar" aria-labelledby="ingest-progress-title" max={total} value={done} />
      ) : (
        <progress className="mp-progress-bar" aria-labelledby="ingest-progress-title" />
      )}
    </>
  );
}

/** The progress panel: nothing when no ingest of the marketplace runs or waits. */
export function IngestProgressPanel({ progress }: { progress: IngestProgress | null }) {
  if (!progress) return null;
  const later = progress.queued.length;
  return (
    <section className="mp-progress notice" aria-labelledby="ingest-progress-title" aria-live="polite" role="status">
      <h2 id="ingest-progress-title">{progress.state === 'queued' ? 'Ingest queued' : 'Ingest running'}</h2>
      {progress.state === 'queued' ? <Queued p={progress} /> : <Running p={progress} />}
      <p className="muted">
        Started {triggers[progress.trigger]} by {progress.requestedBy},{' '}
        {progress.startedAt ? (
          <>
            running since <When at={progress.startedAt} />
          </>
        ) : (
          <>
            queued <When at={progress.queuedAt} />
          </>
        )}
        .
        {later
          ? ` ${plural(later, 'more ingest')} of this marketplace ${later === 1 ? 'waits' : 'wait'} after it.`
          : ''}
      </p>
    </section>
  );
}
