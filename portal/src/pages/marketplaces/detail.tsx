// One marketplace: where its content comes from, what is served, how it is synced, and its snapshots with
// their states. Picked out of the list answer (the API has no per-marketplace read).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { useIngestProgress } from '../../api/ingest-progress';
import { cloneUrl } from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { IngestNow } from '../../components/ingest-now';
import { humanize, ingestOutcomeLabels, labelFrom, snapshotStateLabels } from '../../components/labels';
import { badgeClass, Empty, Loaded, Page, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { RemoveMarketplace, SyncModeForm } from './actions';
import { Flash, readFlash } from './flash';
import { IngestProgressPanel } from './progress';
import {
  ingestRejection,
  liveSnapshots,
  marketplacesQuery,
  originOf,
  rejectedAtIngest,
  type Marketplace,
} from './queries';

/** What the last ingest attempt came to: a failure, a commit captured as rejected, or a success. */
function LastIngest({ m }: { m: Marketplace }) {
  const rejected = ingestRejection(m);
  const outcome = rejected ? 'rejected' : m.lastIngestOutcome;
  const reason = rejected ? rejected.violation : m.lastIngestReason;
  return (
    <>
      <When at={m.lastIngestAt} />{' '}
      {outcome ? (
        <StateBadge
          state={outcome === 'succeeded' ? 'approved' : 'failed'}
          label={labelFrom(ingestOutcomeLabels, outcome)}
        />
      ) : null}
      {reason ? <span> {reason}</span> : null}
    </>
  );
}

/** Said first on the page when the last ingest went wrong: what, why, and what to do. */
function IngestTrouble({ m, canIngest }: { m: Marketplace; canIngest: boolean }) {
  const rejected = ingestRejection(m);
  const again = canIngest ? 'then ingest again (Ingest now)' : 'then ask an approver of it to ingest again';
  if (rejected)
    return (
      <div className="notice notice-error" role="alert">
        <strong>Last ingest: rejected.</strong>{' '}
        <span>
          Snapshot <Link href={`~/review/${rejected.id}`}>#{rejected.id}</Link> (commit{' '}
          <Sha sha={rejected.upstreamSha} />) was captured as rejected and will never be served:{' '}
          {rejected.violation ?? 'its manifest breaks the rules'}
        </span>
        <p>
          Next step: fix <code>.claude-plugin/marketplace.json</code> on the upstream’s default branch, {again}.
        </p>
      </div>
    );
  if (m.lastIngestOutcome === 'failed')
    return (
      <div className="notice notice-error" role="alert">
        <strong>Last ingest: failed.</strong> {m.lastIngestReason ?? ''}
      </div>
    );
  return null;
}

function Details({ m }: { m: Marketplace }) {
  const hosted = originOf(m) === 'hosted';
  return (
    <dl className="mp-details">
      <dt>Origin</dt>
      <dd>{hosted ? 'Hosted: publishers push to the gateway' : 'Upstream: read from its default branch'}</dd>
      {hosted ? (
        <>
          <dt>Push URL</dt>
          <dd>
            <code>{`${location.origin}/publish/${m.name}`}</code>
          </dd>
        </>
      ) : (
        <>
          <dt>Upstream URL</dt>
          <dd>
            <code className="mp-url">{m.url}</code>
            {m.forge ? <span className="muted"> ({m.forge})</span> : null}
          </dd>
        </>
      )}
      <dt>Clone URL</dt>
      <dd>
        <code>{cloneUrl(location.origin, m.name)}</code>
      </dd>
      {m.description ? (
        <>
          <dt>Description</dt>
          <dd>{m.description}</dd>
        </>
      ) : null}
      <dt>Served commit</dt>
      <dd>
        <Sha sha={m.servedSha} />
      </dd>
      <dt>Sync mode</dt>
      <dd>{humanize(m.syncMode)}</dd>
      <dt>Last ingest</dt>
      <dd>
        <LastIngest m={m} />
      </dd>
      {hosted ? null : (
        <>
          <dt>Upstream updated</dt>
          <dd>
            <When at={m.upstreamUpdatedAt} />
          </dd>
        </>
      )}
      <dt>Registered</dt>
      <dd>
        <When at={m.createdAt} />
        {m.registeredBy ? ` by ${m.registeredBy}` : ''}
      </dd>
      {m.selection ? (
        <>
          <dt>Plugin selection</dt>
          <dd>
            include {m.selection.include.length ? m.selection.include.join(', ') : 'every plugin'}
            {m.selection.exclude.length ? `; exclude ${m.selection.exclude.join(', ')}` : ''}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

type Live = ReturnType<typeof liveSnapshots>[number];

/** A snapshot's columns; which one is served depends on the marketplace. */
const snapshotColumns = (m: Marketplace): ReadonlyArray<Column<Live>> => [
  { head: 'Snapshot', names: true, cell: (s) => <Link href={`~/review/${s.id}`}>#{s.id}</Link> },
  {
    head: 'State',
    cell: (s) => (
      <>
        <StateBadge state={s.state} label={labelFrom(snapshotStateLabels, s.state)} />
        {rejectedAtIngest(s) ? <span className="muted mp-gap">at ingest</span> : null}
        {s.sha === m.servedSha && s.state === 'approved' ? (
          <span className={`${badgeClass('served')} mp-gap`}>Served</span>
        ) : null}
        {s.violation ? <div className="muted">{s.violation}</div> : null}
      </>
    ),
  },
  { head: 'Commit', cell: (s) => <Sha sha={s.sha} /> },
  { head: 'Upstream commit', cell: (s) => <Sha sha={s.upstreamSha} /> },
  {
    head: 'Captured',
    cell: (s) => (
      <>
        <When at={s.createdAt} />
        {s.ingestedBy ? <div className="muted">by {s.ingestedBy}</div> : null}
      </>
    ),
  },
  {
    head: 'Decided',
    cell: (s) => (
      <>
        {s.decidedAt ? (
          <When at={s.decidedAt} />
        ) : rejectedAtIngest(s) ? (
          <When at={s.createdAt} />
        ) : (
          <span className="muted">—</span>
        )}
        {s.decidedBy ? (
          <div className="muted">by {s.decidedBy}</div>
        ) : rejectedAtIngest(s) ? (
          <div className="muted">by the gateway, at ingest</div>
        ) : null}
      </>
    ),
  },
];

function Snapshots({ m }: { m: Marketplace }) {
  return (
    <Table
      className="mp-table"
      rows={liveSnapshots(m)}
      columns={snapshotColumns(m)}
      rowKey={(s) => s.id}
      empty="No snapshot yet: ingest to capture the upstream’s default branch."
    />
  );
}

function NotFound({ name }: { name: string }) {
  return (
    <Page title={name}>
      <Empty>
        No live marketplace is named {name}. <Link href="~/marketplaces">Back to the marketplaces</Link>.
      </Empty>
    </Page>
  );
}

function Detail({ m }: { m: Marketplace }) {
  const session = useSession();
  const [flash] = useState(readFlash);
  const progress = useIngestProgress(m.name);
  return (
    <Page title={m.name} actions={session.approves(m.name) ? <IngestNow name={m.name} /> : null}>
      <p>
        <Link href="~/marketplaces">All marketplaces</Link>
      </p>
      <Flash flash={flash} />
      <IngestTrouble m={m} canIngest={session.approves(m.name)} />
      <IngestProgressPanel progress={progress} />
      <h2>Details</h2>
      <Details m={m} />
      <h2>Snapshots</h2>
      <Snapshots m={m} />
      {session.admin ? <SyncModeForm marketplace={m} /> : null}
      {session.admin ? <RemoveMarketplace name={m.name} /> : null}
    </Page>
  );
}

export function MarketplaceDetail({ name }: { name: string }) {
  const list = useQuery(marketplacesQuery());
  return (
    <Loaded query={list}>
      {(marketplaces) => {
        const m = marketplaces.find((x) => x.name === name);
        return m ? <Detail m={m} /> : <NotFound name={name} />;
      }}
    </Loaded>
  );
}
