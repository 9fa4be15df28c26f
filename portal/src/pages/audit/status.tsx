// Estate, mirror and retention status panels (docs/estate.md, mirror.md, retention.md). What is not configured
// (no estate file, no report yet, no mirror) is a plain notice, not an error.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useSession } from '../../api/session';
import { Empty, Loaded, Page, ProblemNotice, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { humanize } from '../../components/labels';
import { ConfirmButton } from '../../components/confirm-button';
import { RetentionPanel } from './retention';
import { estateKey, estateQuery, mirrorQuery, type EstateReport, type MirrorReport } from './queries';
import { AuditTabs } from './tabs';

function NotConfigured({ children }: { children: string }) {
  return <p className="notice">Not configured: {children}</p>;
}

const estateColumns: ReadonlyArray<Column<EstateReport['entries'][number]>> = [
  { head: 'Kind', cell: (e) => humanize(e.kind) },
  { head: 'Name', cell: (e) => e.name },
  { head: 'Action', cell: (e) => <StateBadge state={e.action} label={humanize(e.action)} /> },
  { head: 'Detail', cell: (e) => e.detail ?? <span className="muted">—</span> },
];

function Estate({ report }: { report: EstateReport }) {
  return (
    <>
      <p>
        Last run <When at={report.ranAt} /> ({report.trigger === 'startup' ? 'at startup' : 'on request'}):{' '}
        {report.created} created, {report.updated} updated, {report.unchanged} unchanged, {report.failed} failed.
      </p>
      <Table
        rows={report.entries}
        columns={estateColumns}
        rowKey={(e, i) => `${e.kind}-${e.name}-${String(i)}`}
        empty="The estate file declares nothing."
      />
    </>
  );
}

function EstatePanel({ admin }: { admin: boolean }) {
  const queries = useQueryClient();
  const query = useQuery(estateQuery());
  const reconcile = useMutation({
    mutationFn: () => data(api.POST('/api/v1/estate/reconcile')),
    onSuccess: (report) => {
      if (report.configured) queries.setQueryData(estateKey, { report, configured: true });
    },
  });
  return (
    <section aria-labelledby="estate-title" className="audit-panel">
      <h2 id="estate-title">Estate</h2>
      <Loaded query={query}>
        {({ report, configured }) => (
          <>
            {report ? (
              <Estate report={report} />
            ) : configured ? (
              <p className="notice">
                No estate reconciliation has applied yet: the startup run may have refused the file.
              </p>
            ) : (
              <NotConfigured>gateway.estate.file is not set, so there is no estate to reconcile.</NotConfigured>
            )}
            {/* A reconcile without an estate file could only answer an empty report (decision 421). */}
            {admin && configured ? (
              <div className="row">
                <button type="button" disabled={reconcile.isPending} onClick={() => reconcile.mutate()}>
                  Reconcile the estate now
                </button>
                <span className="muted">Additive and idempotent: it never deletes.</span>
              </div>
            ) : null}
          </>
        )}
      </Loaded>
      <ProblemNotice error={reconcile.error} />
    </section>
  );
}

function MirrorState({ report }: { report: MirrorReport }) {
  const state = report.inSync ? 'in sync' : report.reachable ? 'drifted' : 'unreachable';
  return <StateBadge state={state} label={humanize(state)} />;
}

const mirrorColumns: ReadonlyArray<Column<MirrorReport>> = [
  { head: 'Name', cell: (r) => r.marketplace },
  { head: 'State', cell: (r) => <MirrorState report={r} /> },
  { head: 'Served', cell: (r) => <Sha sha={r.servedTip} /> },
  { head: 'Mirror', cell: (r) => <Sha sha={r.mirrorTip} /> },
  {
    head: 'Drift',
    cell: (r) =>
      `${String(r.missingOnMirror.length)} missing, ${String(r.staleOnMirror.length)} stale, ${String(r.pendingUpdates)} pending`,
  },
  {
    head: 'Last attempt',
    cell: (r) => (
      <>
        {humanize(r.lastAttemptOutcome)} <When at={r.lastAttemptAt} />
        {r.error ? <span className="audit-error"> {r.error}</span> : null}
      </>
    ),
  },
];

function Mirror({ reports }: { reports: readonly MirrorReport[] }) {
  if (reports.length === 1 && reports[0]?.enabled === false)
    return <NotConfigured>gateway.mirror.url is not set.</NotConfigured>;
  if (reports.length === 0) return <Empty>Nothing is served, so nothing is mirrored.</Empty>;
  return <Table rows={reports} columns={mirrorColumns} rowKey={(r) => r.marketplace ?? ''} />;
}

function MirrorPanel() {
  const queries = useQueryClient();
  const query = useQuery(mirrorQuery);
  const reconcile = useMutation({
    mutationFn: () => data(api.POST('/api/v1/mirror/reconcile')),
    onSuccess: (reports) => queries.setQueryData(mirrorQuery.queryKey, reports),
  });
  const enabled = query.data?.some((report) => report.enabled) ?? false;
  return (
    <section aria-labelledby="mirror-title" className="audit-panel">
      <h2 id="mirror-title">Forge mirror</h2>
      <Loaded query={query}>{(reports) => <Mirror reports={reports} />}</Loaded>
      {enabled ? (
        <ConfirmButton
          label="Reconcile the mirror now"
          explanation="Pushes what is served and deletes mirror refs no longer served."
          danger={false}
          pending={reconcile.isPending}
          onConfirm={() => reconcile.mutate()}
        />
      ) : null}
      <ProblemNotice error={reconcile.error} />
    </section>
  );
}

export function StatusPage() {
  const { admin } = useSession();
  return (
    <Page title="Estate, mirror and retention">
      <AuditTabs />
      <EstatePanel admin={admin} />
      {admin ? (
        <MirrorPanel />
      ) : (
        <section aria-labelledby="mirror-title" className="audit-panel">
          <h2 id="mirror-title">Forge mirror</h2>
          <p className="notice">The mirror&apos;s drift is shown to administrators.</p>
        </section>
      )}
      <RetentionPanel admin={admin} />
    </Page>
  );
}
