// The review queue: every held snapshot of the marketplaces the session may approve, oldest first, each
// with its effective vetting outcome (a BLOCKED one is marked: approving it needs a waiver or an admin's
// override); then the marketplaces whose last ingest captured its commit as rejected, which need a fix
// upstream rather than a decision.
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ingestRejections } from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { labelFrom, vettingOutcomeLabels } from '../../components/labels';
import { ColumnHeads, Empty, Loaded, Page, Sha, StateBadge, When } from '../../components/ui';
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

function QueueTable({ held }: { held: readonly Held[] }) {
  const outcomes = useQueries({ queries: held.map((h) => vettingQuery(h.snapshot.id)) });
  const blocked = outcomes.filter((q) => q.data?.outcome === 'BLOCKED').length;
  return (
    <>
      <p>
        {held.length} held snapshot{held.length === 1 ? '' : 's'} waiting for a decision
        {blocked ? `, ${String(blocked)} blocked by vetting` : ''}.
      </p>
      <table className="review-queue">
        <ColumnHeads columns={['Snapshot', 'Marketplace', 'Commit', 'Vetting', 'Captured', 'Ingested by']} />
        <tbody>
          {held.map(({ marketplace, snapshot }, i) => {
            const outcome = outcomes[i]?.data?.outcome;
            return (
              <tr key={snapshot.id} className={outcome === 'BLOCKED' ? 'blocked-row' : undefined}>
                <td>
                  <Link href={`/${String(snapshot.id)}`}>
                    Snapshot {snapshot.id} of {marketplace.name}
                  </Link>
                </td>
                <td>{marketplace.name}</td>
                <td>
                  <Sha sha={snapshot.sha} />
                </td>
                <td>
                  <Outcome outcome={outcome} />
                </td>
                <td>
                  <When at={snapshot.createdAt} />
                </td>
                <td>{snapshot.ingestedBy ?? <span className="muted">unknown</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
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
      <table className="review-queue">
        <ColumnHeads columns={['Snapshot', 'Why', 'Captured']} />
        <tbody>
          {rows.map(({ marketplace, snapshot }) => (
            <tr key={snapshot.id}>
              <td>
                <Link href={`/${String(snapshot.id)}`}>
                  Snapshot {snapshot.id} of {marketplace.name}
                </Link>
              </td>
              <td>{snapshot.violation}</td>
              <td>
                <When at={snapshot.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
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
