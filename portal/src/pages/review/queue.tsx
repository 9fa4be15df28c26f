// The review queue: every held snapshot of the marketplaces the session may approve, oldest first, each
// with its effective vetting outcome (a BLOCKED one is marked: approving it needs a waiver or an admin's
// override); then the marketplaces whose last ingest captured its commit as rejected, which need a fix
// upstream rather than a decision.
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ingestRejections } from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { labelFrom, vettingOutcomeLabels } from '../../components/labels';
import { Empty, Loaded, Page, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { awaitsReview, marketplacesQuery, vettingQuery, type Marketplace, type Snapshot } from './queries';
import './review.css';

type Held = Readonly<{ marketplace: Marketplace; snapshot: Snapshot }>;

function heldOf(marketplaces: readonly Marketplace[], approves: (name: string) => boolean): Held[] {
  return marketplaces
    .filter((m) => approves(m.name))
    .flatMap((marketplace) => marketplace.snapshots.filter(awaitsReview).map((snapshot) => ({ marketplace, snapshot })))
    .sort((a, b) => a.snapshot.id - b.snapshot.id);
}

function Outcome({ outcome }: { outcome: string | undefined }) {
  if (!outcome) return <span className="muted">…</span>;
  return <StateBadge state={outcome} label={labelFrom(vettingOutcomeLabels, outcome)} />;
}

/** The snapshot, as a link to its review page: the first cell of both tables. */
const snapshotColumn: Column<Held> = {
  head: 'Snapshot',
  cell: ({ marketplace, snapshot }) => (
    <Link href={`/${String(snapshot.id)}`}>
      Snapshot {snapshot.id} of {marketplace.name}
    </Link>
  ),
};

const capturedColumn: Column<Held> = { head: 'Captured', cell: ({ snapshot }) => <When at={snapshot.createdAt} /> };

const queueColumns: ReadonlyArray<Column<Held & { outcome: string | undefined }>> = [
  snapshotColumn,
  { head: 'Marketplace', cell: ({ marketplace }) => marketplace.name },
  { head: 'Commit', cell: ({ snapshot }) => <Sha sha={snapshot.sha} /> },
  { head: 'Vetting', cell: ({ outcome }) => <Outcome outcome={outcome} /> },
  capturedColumn,
  { head: 'Ingested by', cell: ({ snapshot }) => snapshot.ingestedBy ?? <span className="muted">unknown</span> },
];

function QueueTable({ held }: { held: readonly Held[] }) {
  const outcomes = useQueries({ queries: held.map((h) => vettingQuery(h.snapshot.id)) });
  const blocked = outcomes.filter((q) => q.data?.outcome === 'BLOCKED').length;
  return (
    <>
      <p>
        {held.length} held snapshot{held.length === 1 ? '' : 's'} waiting for a decision
        {blocked ? `, ${String(blocked)} blocked by vetting` : ''}.
      </p>
      <Table
        className="review-queue"
        rows={held.map((h, i) => ({ ...h, outcome: outcomes[i]?.data?.outcome }))}
        columns={queueColumns}
        rowKey={({ snapshot }) => snapshot.id}
        rowClass={({ outcome }) => (outcome === 'BLOCKED' ? 'blocked-row' : undefined)}
      />
    </>
  );
}

/** The session's marketplaces whose newest snapshot the ingest rejected: nothing to decide, something to fix. */
function RejectedAtIngest({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const rows = ingestRejections(marketplaces);
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="queue-rejected-title">
      <h2 id="queue-rejected-title">Rejected at ingest</h2>
      <p>
        The last ingest of {rows.length === 1 ? 'this marketplace' : 'these marketplaces'} captured a commit whose
        marketplace.json breaks the rules: fix it upstream, then ingest again.
      </p>
      <Table
        className="review-queue"
        rows={rows}
        columns={[snapshotColumn, { head: 'Why', cell: ({ snapshot }) => snapshot.violation }, capturedColumn]}
        rowKey={({ snapshot }) => snapshot.id}
      />
    </section>
  );
}

export function Queue() {
  const session = useSession();
  // Read again on every visit: a snapshot ingested a moment ago belongs in the queue.
  const marketplaces = useQuery({ ...marketplacesQuery(), refetchOnMount: 'always' });
  return (
    <Page title="Review queue">
      <Loaded query={marketplaces}>
        {(list) => {
          const held = heldOf(list, session.approves);
          return (
            <>
              {held.length ? (
                <QueueTable held={held} />
              ) : (
                <Empty>No snapshot is waiting for review in the marketplaces you approve.</Empty>
              )}
              <RejectedAtIngest marketplaces={list.filter((m) => session.approves(m.name))} />
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}
