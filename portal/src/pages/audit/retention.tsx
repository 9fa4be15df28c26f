// Retention (docs/retention.md): the dry run of the next evaluation pass for auditors and admins; the
// evaluation and compaction passes on demand for admins ("On-demand passes work whether or not the
// scheduler is enabled").
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { Loaded, ProblemNotice, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { humanize, labelFrom, snapshotStateLabels } from '../../components/labels';
import { ConfirmButton } from '../../components/confirm-button';
import { retentionQuery, type RetentionCandidate } from './queries';

const candidateColumns: ReadonlyArray<Column<RetentionCandidate>> = [
  { head: 'Snapshot', cell: (c) => c.snapshotId },
  { head: 'Marketplace', cell: (c) => c.marketplace },
  { head: 'Commit', cell: (c) => <Sha sha={c.sha} /> },
  {
    head: 'State',
    cell: (c) => (
      <>
        <StateBadge state={c.state} label={labelFrom(snapshotStateLabels, c.state)} />
        {c.withdrawn ? <span className="muted"> withdrawn</span> : null}
      </>
    ),
  },
  { head: 'Criterion', cell: (c) => humanize(c.criterion) },
  { head: 'Captured', cell: (c) => <When at={c.capturedAt} /> },
  { head: 'Last fetch', cell: (c) => <When at={c.lastFetch} /> },
];

export function RetentionPanel({ admin }: { admin: boolean }) {
  const queries = useQueryClient();
  const query = useQuery(retentionQuery);
  const refresh = () => queries.invalidateQueries({ queryKey: retentionQuery.queryKey });
  const evaluate = useMutation({
    mutationFn: () => data(api.POST('/api/v1/retention/evaluate')),
    onSuccess: refresh,
  });
  const compact = useMutation({ mutationFn: () => data(api.POST('/api/v1/retention/compact')), onSuccess: refresh });
  return (
    <section aria-labelledby="retention-title" className="audit-panel">
      <h2 id="retention-title">Retention</h2>
      <p className="muted">What an evaluation pass would soft-delete now (a dry run; approved snapshots never).</p>
      <Loaded query={query}>
        {(candidates) => (
          <Table
            rows={candidates}
            columns={candidateColumns}
            rowKey={(c) => c.snapshotId}
            empty="An evaluation pass now would soft-delete nothing."
          />
        )}
      </Loaded>
      {admin ? (
        <div className="row">
          <ConfirmButton
            label="Run an evaluation pass"
            explanation="Soft-deletes the candidates above (restorable until purged)."
            pending={evaluate.isPending}
            onConfirm={() => evaluate.mutate()}
          />
          <ConfirmButton
            label="Run a compaction pass"
            explanation="Purges soft-deleted snapshots past their restore window, for good."
            pending={compact.isPending}
            onConfirm={() => compact.mutate()}
          />
        </div>
      ) : null}
      {evaluate.data ? (
        <p className="notice notice-good" role="status">
          Evaluation: {evaluate.data.selected} selected, {evaluate.data.acted} soft-deleted.
        </p>
      ) : null}
      {compact.data ? (
        <p className="notice notice-good" role="status">
          Compaction: {compact.data.selected} selected, {compact.data.acted} purged; {compact.data.swept.stagingRefs}{' '}
          staging refs, {compact.data.swept.deliveries} old deliveries and {compact.data.swept.externalCaches} unused
          external repository caches swept.
        </p>
      ) : null}
      <ProblemNotice error={evaluate.error ?? compact.error} />
    </section>
  );
}
