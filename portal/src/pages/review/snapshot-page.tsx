// A snapshot under review: who, what and where from at the top with the decisions the session may take,
// then one tab at a time (?tab=): the vetting report, what a user would newly consent to, the content
// inventory, the file diffs, and the other checks (licenses, provenance, release age, four-eyes, name
// collisions, policy).
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useSearch } from 'wouter';
import { rejectedAtIngest } from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { labelFrom, snapshotStateLabels, vettingOutcomeLabels } from '../../components/labels';
import { Loaded, Loading, Page, Sha, StateBadge, When } from '../../components/ui';
import { DecidedBy, DecisionRecord } from './decided';
import { Facts } from './facts';
import { Decisions } from './decisions';
import { Checks } from './checks';
import { Consent, Inventory } from './content';
import { FileDiffs } from './file-diffs';
import { locate, marketplacesQuery, vettingQuery, type Located } from './queries';
import { VettingReportView } from './vetting';
import './review.css';

const tabs = [
  { key: 'vetting', label: 'Vetting report' },
  { key: 'consent', label: 'New to consent' },
  { key: 'content', label: 'Content' },
  { key: 'files', label: 'File diffs' },
  { key: 'checks', label: 'Licenses and checks' },
] as const;
type Tab = (typeof tabs)[number]['key'];

function Tabs({ id, current }: { id: number; current: Tab }) {
  return (
    <nav className="tabs" aria-label="Snapshot sections">
      {tabs.map((tab) => (
        <Link
          key={tab.key}
          href={`/${String(id)}${tab.key === 'vetting' ? '' : `?tab=${tab.key}`}`}
          aria-current={tab.key === current ? 'page' : undefined}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}

function Summary({ located }: { located: Located }) {
  const { marketplace, snapshot } = located;
  const vetting = useQuery(vettingQuery(snapshot.id));
  const outcome = vetting.data?.outcome;
  const rows: [string, ReactNode][] = [
    ['Marketplace', marketplace.name],
    [
      'State',
      <StateBadge
        key="s"
        state={snapshot.state}
        label={rejectedAtIngest(snapshot) ? 'Rejected at ingest' : labelFrom(snapshotStateLabels, snapshot.state)}
      />,
    ],
    [
      'Vetting',
      outcome ? <StateBadge key="v" state={outcome} label={labelFrom(vettingOutcomeLabels, outcome)} /> : '…',
    ],
    ['Commit', <Sha key="c" sha={snapshot.sha} />],
    ['Served now', <Sha key="v" sha={marketplace.servedSha} />],
    ['Captured', <When key="w" at={snapshot.createdAt} />],
    ['Ingested by', snapshot.ingestedBy ?? 'unknown'],
    ['Decided', <DecidedBy key="d" snapshot={snapshot} />],
  ];
  return <Facts rows={rows} />;
}

function Section({ tab, located }: { tab: Tab; located: Located }) {
  const id = located.snapshot.id;
  switch (tab) {
    case 'vetting':
      return <VettingReportView located={located} />;
    case 'consent':
      return <Consent id={id} />;
    case 'content':
      return <Inventory id={id} />;
    case 'files':
      return <FileDiffs id={id} />;
    case 'checks':
      return <Checks located={located} />;
  }
}

function Snapshot({ located, tab }: { located: Located; tab: Tab }) {
  const session = useSession();
  const { marketplace, snapshot } = located;
  return (
    <Page title={`Snapshot ${String(snapshot.id)} of ${marketplace.name}`}>
      <p>
        <Link href="/">Back to the review queue</Link>
      </p>
      <Summary located={located} />
      <DecisionRecord located={located} />
      {session.approves(marketplace.name) ? (
        <Decisions located={located} />
      ) : snapshot.state === 'held' || snapshot.state === 'revoked' ? (
        <p className="muted">
          You may read this snapshot; deciding on it needs the approver role for {marketplace.name}.
        </p>
      ) : null}
      <Tabs id={snapshot.id} current={tab} />
      <Section tab={tab} located={located} />
    </Page>
  );
}

export function SnapshotPage({ id }: { id: number }) {
  const requested = new URLSearchParams(useSearch()).get('tab');
  const tab: Tab = tabs.find((t) => t.key === requested)?.key ?? 'vetting';
  const marketplaces = useQuery({ ...marketplacesQuery(), refetchOnMount: 'always' });
  return (
    <Loaded query={marketplaces}>
      {(list) => {
        const located = Number.isInteger(id) ? locate(list, id) : null;
        if (!located && marketplaces.isFetching) return <Loading />;
        if (!located)
          return (
            <Page title="Snapshot not found">
              <p>
                No live marketplace has a snapshot {Number.isInteger(id) ? String(id) : ''}.{' '}
                <Link href="/">Back to the review queue</Link>.
              </p>
            </Page>
          );
        return <Snapshot located={located} tab={tab} />;
      }}
    </Loaded>
  );
}
