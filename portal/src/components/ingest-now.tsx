// Ingest now, for an approver of the marketplace or an admin (the server enforces it): on a marketplace's page
// and on a decided snapshot's page, where a fixed upstream is the way on.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, data } from '../api/client';
import { ingestProgressKey, useIngestProgress } from '../api/ingest-progress';
import { marketplacesKey, type Snapshot } from '../api/marketplaces';
import { ActionProblem } from './action-problem';
import { labelFrom, snapshotStateLabels } from './labels';
import { StateBadge } from './ui';

/**
 * What an ingest answered: the captured snapshot and its state; a snapshot the ingest rejected (its
 * marketplace.json broke the manifest rules) is a failure, said in red. The page says why and what to do.
 */
function IngestAnswer({ snapshot }: { snapshot: Snapshot }) {
  const link = <Link href={`~/review/${snapshot.id}`}>#{snapshot.id}</Link>;
  const commit = <code>{snapshot.upstreamSha.slice(0, 12)}</code>;
  if (snapshot.state === 'rejected')
    return (
      <p className="notice notice-error" role="alert">
        Snapshot {link} of {commit} was rejected at ingest: it will not be served.
        {snapshot.violation ? ` ${snapshot.violation}` : ''}
      </p>
    );
  return (
    <p className="notice notice-good" role="status">
      Snapshot {link} of {commit} is{' '}
      <StateBadge state={snapshot.state} label={labelFrom(snapshotStateLabels, snapshot.state).toLowerCase()} />
      {snapshot.violation ? `: ${snapshot.violation}` : ''}
    </p>
  );
}

/** Ingest now; while this or any other ingest of the marketplace runs or waits, the button says so and waits. */
export function IngestNow({ name }: { name: string }) {
  const queries = useQueryClient();
  const ingest = useMutation({
    mutationFn: () => data(api.POST('/api/v1/marketplaces/{name}/ingest', { params: { path: { name } } })),
    onSettled: () => queries.invalidateQueries({ queryKey: ingestProgressKey(name) }),
    onSuccess: () => queries.invalidateQueries({ queryKey: marketplacesKey }),
  });
  const progress = useIngestProgress(name, ingest.isPending);
  const busy = ingest.isPending || progress !== null;
  return (
    <div className="stack">
      <div className="row">
        <button
          type="button"
          disabled={busy}
          aria-describedby={progress ? 'ingest-progress-title' : undefined}
          onClick={() => ingest.mutate()}
        >
          {progress?.state === 'queued' ? 'Queued…' : busy ? 'Ingesting…' : 'Ingest now'}
        </button>
      </div>
      {ingest.data ? <IngestAnswer snapshot={ingest.data} /> : null}
      <ActionProblem error={ingest.error} />
    </div>
  );
}
