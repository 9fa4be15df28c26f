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
import { ColumnHeads, Empty, Loaded, Loading, Page, Sha, StateBadge, When } from '../../components/ui';
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

function ServedTable({ marketplaces }: { marketplaces: readonly Marketplace[] }) {
  const served = marketplaces.filter((m) => m.servedSha).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section aria-labelledby="served-title">
      <h2 id="served-title">Served marketplaces</h2>
      {served.length === 0 ? (
        <Empty>Nothing is served yet: a marketplace is served once one of its snapshots is approved.</Empty>
      ) : (
        <table className="mp-table">
          <ColumnHeads columns={['Marketplace', 'Served commit', 'Approved']} />
          <tbody>
            {served.slice(0, servedRows).map((m) => {
              const snapshot = servedSnapshot(m);
              return (
                <tr key={m.id}>
                  <th scope="row">
                    <Link href={`~/marketplaces/${m.name}`}>{m.name}</Link>
                  </th>
                  <td>
                    <Sha sha={m.servedSha} />
                  </td>
                  <td>
                    <When at={snapshot?.decidedAt} />
                    {snapshot?.decidedBy ? <span className="muted"> by {snapshot.decidedBy}</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
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
      ) : rows.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <table className="mp-table">
          <ColumnHeads columns={['Snapshot', 'Marketplace', 'Upstream commit', 'Vetting', 'Captured']} />
          <tbody>
            {rows.map(({ marketplace, snapshot }) => {
              const outcome = vetting.get(snapshot.id)?.outcome;
              return (
                <tr key={snapshot.id}>
                  <th scope="row">
                    <Link href={`~/review/${snapshot.id}`}>#{snapshot.id}</Link>
                  </th>
                  <td>
                    <Link href={`~/marketplaces/${marketplace}`}>{marketplace}</Link>
                  </td>
                  <td>
                    <Sha sha={snapshot.upstreamSha} />
                  </td>
                  <td>
                    {outcome ? (
                      <StateBadge state={outcome} label={labelFrom(vettingOutcomeLabels, outcome)} />
                    ) : (
                      <span className="muted">not checked here</span>
                    )}
                  </td>
                  <td>
                    <When at={snapshot.createdAt} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
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
      {rows.length === 0 ? (
        <Empty>None: every last ingest captured a commit that can be reviewed.</Empty>
      ) : (
        <table className="mp-table">
          <ColumnHeads columns={['Marketplace', 'Snapshot', 'Why', 'Captured']} />
          <tbody>
            {rows.map(({ marketplace, snapshot }) => (
              <tr key={snapshot.id}>
                <th scope="row">
                  <Link href={`~/marketplaces/${marketplace.name}`}>{marketplace.name}</Link>
                </th>
                <td>
                  <Link href={`~/review/${snapshot.id}`}>#{snapshot.id}</Link>{' '}
                  <StateBadge state="rejected" label="Rejected" />
                </td>
                <td className="overview-reason">{snapshot.violation ?? 'its manifest breaks the rules'}</td>
                <td>
                  <When at={snapshot.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
