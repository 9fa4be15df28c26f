// The dry run (POST /api/v1/policy/dry-run): before a rule is enabled, which served and held snapshots it would deny
// and why. The gateway evaluates the expression as the approve gate would; nothing is stored or recorded.
import { useMutation } from '@tanstack/react-query';
import { api, data, type Body } from '../../api/client';
import { badgeClass, Empty, ProblemNotice, Sha, StateBadge } from '../../components/ui';
import { Table, type Column } from '../../components/table';

type Answer = Body<'/api/v1/policy/dry-run', 'post'>;
type Verdict = Answer['snapshots'][number];

const dryRun = (expression: string): Promise<Answer> =>
  data(api.POST('/api/v1/policy/dry-run', { body: { expression } }));

function Why({ verdict }: { verdict: Verdict }) {
  return verdict.outcome === 'error' ? (
    <span className={badgeClass('fail')}>error: {verdict.error}</span>
  ) : (
    <span className={badgeClass('blocked')}>matches</span>
  );
}

const deniedColumns: ReadonlyArray<Column<Verdict>> = [
  { head: 'Snapshot', names: true, cell: (s) => s.id },
  { head: 'Marketplace', cell: (s) => s.marketplace },
  { head: 'Commit', cell: (s) => <Sha sha={s.sha} /> },
  { head: 'State', cell: (s) => <StateBadge state={s.state} /> },
  { head: 'Why', cell: (s) => <Why verdict={s} /> },
];

function Denied({ snapshots }: { snapshots: Verdict[] }) {
  return (
    <Table rows={snapshots} columns={deniedColumns} rowKey={(s) => s.id} caption="Snapshots this rule would deny" />
  );
}

function Result({ answer, current }: { answer: Answer; current: string }) {
  const denied = answer.snapshots.filter((s) => s.decision === 'deny');
  return (
    <div className="stack dry-run-result" role="status">
      <p>
        <strong>
          Would deny {answer.denied} and allow {answer.allowed}
        </strong>{' '}
        of {answer.evaluated} served and held snapshot{answer.evaluated === 1 ? '' : 's'}.
      </p>
      {answer.truncated ? (
        <p className="notice notice-warn">
          Only the first {answer.evaluated} of {answer.total} were evaluated (served first, newest first).
        </p>
      ) : null}
      {answer.expression === current ? null : (
        <p className="muted">The expression has changed since this dry run: run it again.</p>
      )}
      {denied.length === 0 ? <Empty>No served or held snapshot would be denied.</Empty> : <Denied snapshots={denied} />}
    </div>
  );
}

/** The rule editor's "Dry run" action and its answer, for the expression being edited. */
export function DryRun({ expression }: { expression: string }) {
  const run = useMutation({ mutationFn: dryRun });
  return (
    <section className="stack" aria-labelledby="dry-run-title">
      <h4 id="dry-run-title">Dry run</h4>
      <p className="muted">
        Evaluates the expression against every served and held snapshot as if approving it now; nothing is recorded.
      </p>
      <div className="row">
        <button
          type="button"
          className="secondary"
          disabled={run.isPending || expression.trim() === ''}
          onClick={() => run.mutate(expression)}
        >
          {run.isPending ? 'Running…' : 'Dry run'}
        </button>
      </div>
      <ProblemNotice error={run.error} />
      {run.data && !run.error ? <Result answer={run.data} current={expression} /> : null}
    </section>
  );
}
