// The overview: what is served (each marketplace's served commit), what waits for a decision, what vetting
// blocked, what the last ingest rejected, and, for auditors and admins, the newest ledger entries and
// adoption at a glance. With no marketplace yet, it says how to start.
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import {
  ingestRejections,
  marketplacesQuery,
  servedSnapshot,
  type Marketplace,
  type Snapshot,
} from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { labelFrom, vettingOutcomeLabels } from '../../components/labels';
import { Loaded, Loading, Page, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { AdoptionGlance, RecentActivity } from './cards';
import { vettingLookups, vettingQuery, type Vetting } from './queries';
import './overview.css';

const servedRows = 15;

type Held = Readonly<{ marketplace: string; snapshot: Snapshot }>;

const heldSnapshots = (marketplaces: readonly Marketplace[]): Held[] =>
  marketplaces
    .flatMap((m) =>
      m.snapshots
        .filter((s) => s.state === 'held' && !s.deleted_at)
        .map((snapshot) => ({ marketplace: m.name, snapshot })),
    )
    .sort((a, b) => b.snapshot.id - a.snapshot.id);

function Figures({
  served,
  total,
  waiting,
  blocked,
}: {
  served: number;
  total: number;
  waiting: number | null;
  blocked: number | null;
}) {
  return (
    <div className="cards">
      <div className="card">
        <div className="figure">{served}</div>
        <div>
          of {total} marketplace{total === 1 ? '' : 's'} served
        </div>
      </div>
      <div className="card">
        <div className="figure">{waiting ?? '…'}</div>
        <div>held snapshot{waiting === 1 ? '' : 's'} waiting for review</div>
      </div>
      <div className="card">
        <div className="figure">{blocked ?? '…'}</div>
        <div>blocked by vetting</div>
      </div>
    </div>
  );
}

const servedColumns: ReadonlyArray<Column<Marketplace>> = [
  { head: 'Marketplace', names: true, cell: (m) => <Link href={`~/marketplaces/${m.name}`}>{m.name}</Link> },
  { head: 'Served commit', cell: (m) => <Sha sha={m.servedSha} /> },
  {
    head: 'Approved',
    cell: (m) => {
      const snapshot = servedSnapshot(m);
      return (
        <>
          <When at={snapshot?.decidedAt} />
          {snapshot?.decidedBy ? <span className="muted"> by {snapshot.decidedBy}</span> : null}
        </>
      );
    },
  },
];

const heldColumns = (vetting: Map<number, Vetting>): ReadonlyArray<Column<Held>> => [
  {
    head: 'Snapshot',
    names: true,
    cell: ({ snapshot }) => <Link href={`~/review/${snapshot.id}`}>#{snapshot.id}</Link>,
  },
  {
    head: 'Marketplace',
    cell: ({ marketplace }) => <Link href={`~/marketplaces/${marketplace}`}>{marketplace}</Link>,
  },
  { head: 'Upstream commit', cell: ({ snapshot }) => <Sha sha={snapshot.upstreamSha} /> },
  {
    head: 'Vetting',
    cell: ({ snapshot }) => {
      const outcome = vetting.get(snapshot.id)?.outcome;
      return outcome ? (
        <StateBadge state={outcome} label={labelFrom(vettingOutcomeLabels, outcome)} />
      ) : (
        <span className="muted">not checked here</span>
      );
    },
  },
  { head: 'Captured', cell: ({ snapshot }) => <When at={snapshot.createdAt} /> },
];

const rejectedColumns: ReadonlyArray<Column<ReturnType<typeof ingestRejections>[number]>> = [
  {
    head: 'Marketplace',
    names: true,
    cell: ({ marketplace }) => <Link href={`~/marketplaces/${marketplace.name}`}>{marketplace.name}</Link>,
  },
  {
    head: 'Snapshot',
    cell: ({ snapshot }) => (
      <>
        <Link href={`~/review/${snapshot.id}`}>#{snapshot.id}</Link> <StateBadge state="rejected" label="Rejected" />
      </>
    ),
  },
  {
    head: 'Why',
    className: 'overview-reason',
    cell: ({ snapshot }) => snapshot.violation ?? 'its manifest breaks the rules',
  },
  { head: 'Captured', cell: ({ snapshot }) => <When at={snapshot.createdAt} /> },
];

function ServedTable({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const served = marketplaces.filter((m) => m.servedSha).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section aria-labelledby="served-title">
      <h2 id="served-title">Served marketplaces</h2>
      <Table
        className="mp-table"
        rows={served.slice(0, servedRows)}
        columns={servedColumns}
        rowKey={(m) => m.id}
        empty="Nothing is served yet: a marketplace is served once one of its snapshots is approved."
      />
      <p>
        <Link href="~/marketplaces">
          {served.length > servedRows ? `All ${served.length} served marketplaces` : 'All marketplaces'}
        </Link>
      </p>
    </section>
  );
}

function HeldTable({
  id,
  title,
  rows,
  vetting,
}: {
  id: string;
  title: string;
  rows: Held[] | null;
  vetting: Map<number, Vetting>;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {rows === null ? (
        <Loading what="Checking vetting outcomes" />
      ) : (
        <Table
          className="mp-table"
          rows={rows}
          columns={heldColumns(vetting)}
          rowKey={({ snapshot }) => snapshot.id}
          empty="None."
        />
      )}
    </section>
  );
}

/** Marketplaces whose newest snapshot the ingest captured as rejected: nothing new reaches their users. */
function RejectedAtIngest({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const rows = ingestRejections(marketplaces);
  return (
    <section aria-labelledby="rejected-title">
      <h2 id="rejected-title">Rejected at ingest</h2>
      <Table
        className="mp-table"
        rows={rows}
        columns={rejectedColumns}
        rowKey={({ snapshot }) => snapshot.id}
        empty="None: every last ingest captured a commit that can be reviewed."
      />
    </section>
  );
}

/** The overview of an empty estate: what to do first, for those who may do it. */
function FirstSteps() {
  const session = useSession();
  return (
    <section aria-labelledby="first-title" className="notice overview-first">
      <h2 id="first-title">No marketplace is registered yet</h2>
      {session.admin ? (
        <p>
          <Link href="~/marketplaces?register">Register your first marketplace</Link>: the gateway reads its upstream,
          holds each commit for review, and serves what you approve.
        </p>
      ) : (
        <p>An administrator registers marketplaces; once one is registered and approved it is listed here.</p>
      )}
    </section>
  );
}

function Queue({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const session = useSession();
  const held = heldSnapshots(marketplaces);
  const checked = held.slice(0, vettingLookups);
  const answers = useQueries({ queries: checked.map((h) => vettingQuery(h.snapshot.id)) });
  const vetting = new Map<number, Vetting>();
  answers.forEach((a) => (a.data ? vetting.set(a.data.snapshotId, a.data) : undefined));
  const blocked = held.filter((h) => vetting.get(h.snapshot.id)?.outcome === 'BLOCKED');
  const waiting = held.filter((h) => vetting.get(h.snapshot.id)?.outcome !== 'BLOCKED');
  const served = marketplaces.filter((m) => m.servedSha).length;
  // Until every outcome asked for is known, a blocked snapshot would show as waiting: say so instead.
  const checking = answers.some((a) => a.isPending);
  return (
    <>
      <Figures
        served={served}
        total={marketplaces.length}
        waiting={checking ? null : waiting.length}
        blocked={checking ? null : blocked.length}
      />
      <ServedTable marketplaces={marketplaces} />
      <HeldTable
        id="waiting-title"
        title="Waiting for review"
        rows={checking ? null : waiting.slice(0, vettingLookups)}
        vetting={vetting}
      />
      <HeldTable id="blocked-title" title="Blocked by vetting" rows={checking ? null : blocked} vetting={vetting} />
      <RejectedAtIngest marketplaces={marketplaces} />
      {held.length > checked.length ? (
        <p className="muted">
          The vetting outcome of the {checked.length} newest held snapshots is shown here;{' '}
          {held.length - checked.length} older ones are in the review queue.
        </p>
      ) : null}
      {session.reviewer ? (
        <p>
          <Link href="~/review">Open the review queue</Link>
        </p>
      ) : null}
    </>
  );
}

export default function Overview() {
  const session = useSession();
  const list = useQuery(marketplacesQuery());
  return (
    <Page title="Overview">
      <Loaded query={list}>
        {(marketplaces) => (marketplaces.length === 0 ? <FirstSteps /> : <Queue marketplaces={marketplaces} />)}
      </Loaded>
      {session.auditor ? (
        <div className="overview-columns">
          <RecentActivity />
          <AdoptionGlance />
        </div>
      ) : null}
    </Page>
  );
}
