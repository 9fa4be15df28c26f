// Retention (docs/retention.md): the dry run of the next evaluation pass for auditors and admins; the
// evaluation and compaction passes on demand for admins ("On-demand passes work whether or not the
// scheduler is enabled").
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { ColumnHeads, Empty, Loaded, ProblemNotice, Sha, StateBadge, When } from '../../components/ui';
import { humanize, labelFrom, snapshotStateLabels } from '../../components/labels';
import { ConfirmButton } from '../../components/confirm-button';
import { retentionKey, retentionQuery, type RetentionCandidate } from './queries';

function Candidates({ candidates }: { candidates: readonly RetentionCandidate[] }) {
  if (candidates.length === 0) return <Empty>An evaluation pass now would soft-delete nothing.</Empty>;
  return (
    <table>
      <ColumnHeads columns={['Snapshot', 'Marketplace', 'Commit', 'State', 'Criterion', 'Captured', 'Last fetch']} />
      <tbody>
        {candidates.map((c) => (
          <tr key={c.snapshotId}>
            <td>{c.snapshotId}</td>
            <td>{c.marketplace}</td>
            <td>
              <Sha sha={c.sha} />
            </td>
            <td>
              <StateBadge state={c.state} label={labelFrom(snapshotStateLabels, c.state)} />
              {c.withdrawn ? <span className="muted"> withdrawn</span> : null}
            </td>
            <td>{humanize(c.criterion)}</td>
            <td>
              <When at={c.capturedAt} />
            </td>
            <td>
              <When at={c.lastFetch} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RetentionPanel({ admin }: { admin: boolean }) {
  const queries = useQueryClient();
  const query = useQuery(retentionQuery());
  const refresh = () => queries.invalidateQueries({ queryKey: retentionKey });
  const evaluate = useMutation({
    mutationFn: () => data(api.POST('/api/v1/retention/evaluate')),
    onSuccess: refresh,
  });
  const compact = useMutation({ mutationFn: () => data(api.POST('/api/v1/retention/compact')), onSuccess: refresh });
  return (
    <section aria-labelledby="retention-title" className="audit-panel">
      <h2 id="retention-title">Retention</h2>
      <p className="muted">What an evaluation pass would soft-delete now (a dry run; approved snapshots never).</p>
      <Loaded query={query}>{(candidates) => <Candidates candidates={candidates} />}</Loaded>
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
          staging refs and {compact.data.swept.deliveries} old deliveries swept.
        </p>
      ) : null}
      <ProblemNotice error={evaluate.error ?? compact.error} />
    </section>
  );
}
