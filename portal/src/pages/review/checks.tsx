// The other checks of a snapshot, each from its own read: licenses, provenance, release age, four-eyes,
// name collisions, and (for a session that may read the rules) the enabled policy rules that would deny
// approving it now, each evaluated in the playground (nothing stored or recorded).
import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useSession } from '../../api/session';
import { humanize } from '../../components/labels';
import type { ReactNode } from 'react';
import { Empty, Loaded, Sha, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { snapshotKey, snapshotQuery, type Located, type SnapshotAnswer, type SnapshotRead } from './queries';
import { Facts } from './facts';

/** One check under its heading, from the snapshot's own read of it: what its answer shows once it is in. */
function SnapshotCheck<W extends SnapshotRead>({
  id,
  title,
  what,
  show,
}: {
  id: number;
  title: string;
  what: W;
  show: (answer: SnapshotAnswer<W>) => ReactNode;
}) {
  const query = useQuery(snapshotQuery(id, what));
  return (
    <>
      <h2>{title}</h2>
      <Loaded query={query}>{show}</Loaded>
    </>
  );
}

type License = SnapshotAnswer<'licenses'>['licenses'][number];

const licenseColumns: ReadonlyArray<Column<License>> = [
  { head: 'License', cell: (l) => l.spdxId ?? <span className="muted">unknown ({l.declared ?? 'not declared'})</span> },
  { head: 'Source', cell: (l) => l.source },
  { head: 'Where', cell: (l) => <code>{l.location}</code> },
  {
    head: 'Evaluation',
    cell: (l) => <StateBadge state={l.evaluation === 'OK' ? 'pass' : l.evaluation} label={humanize(l.evaluation)} />,
  },
];

const licenses = (r: SnapshotAnswer<'licenses'>) => (
  <Table rows={r.licenses} columns={licenseColumns} rowKey={(_, i) => i} empty="No license information at all." />
);

const days = (ms: number): string =>
  ms >= 86_400_000 ? `${(ms / 86_400_000).toFixed(1)} days` : `${(ms / 3_600_000).toFixed(1)} hours`;

const releaseAge = (a: SnapshotAnswer<'release-age'>) => (
  <Facts
    rows={[
      ['Age', days(a.ageMs)],
      ['Minimum release age', a.minimumReleaseAgeMs ? days(a.minimumReleaseAgeMs) : 'none'],
      ['Approvable', a.elapsed ? 'yes' : <When key="at" at={a.approvableAt} />],
    ]}
  />
);

const provenance = (v: SnapshotAnswer<'provenance'>) => (
  <Facts
    rows={[
      ['Origin', humanize(v.origin)],
      ['Upstream', v.url ? <code key="u">{v.url}</code> : 'hosted'],
      ['Commit served', <Sha key="s" sha={v.sha} />],
      ['Commit captured', <Sha key="u" sha={v.upstreamSha} />],
      ['Composite', v.composite ? 'yes (external sources resolved)' : 'no'],
      ['Committed', <When key="c" at={v.committedAt} />],
      ['Captured', <When key="cap" at={v.capturedAt} />],
      ['Ingested by', v.ingestedBy ?? 'unknown'],
    ]}
  />
);

const fourEyes = (v: SnapshotAnswer<'four-eyes'>) => (
  <Facts
    rows={[
      ['Ingested by', v.ingestedBy ?? 'unknown'],
      ['Approved by', v.approvedBy ?? 'not yet'],
      [
        'Four eyes',
        v.satisfied === null
          ? 'undecided: approve as someone other than the ingesting principal to satisfy it'
          : v.satisfied
            ? 'satisfied'
            : 'not satisfied: the same principal ingested and approved',
      ],
    ]}
  />
);

const collisions = (v: SnapshotAnswer<'name-collisions'>) =>
  v.collisions.length ? (
    <ul>
      {v.collisions.map((x) => (
        <li key={x.name}>
          <code>{x.name}</code> is also claimed by {x.marketplaces.join(', ')}
        </li>
      ))}
    </ul>
  ) : (
    <Empty>No plugin name collides with another served marketplace.</Empty>
  );

function PolicyPreview({ id }: { id: number }) {
  const denials = useQuery({
    queryKey: snapshotKey(id, 'policy'),
    queryFn: async () => {
      const rules = (await data(api.GET('/api/v1/policy/rules'))).filter((r) => r.enabled);
      const results = await Promise.all(
        rules.map(async (rule) => ({
          rule,
          result: await data(
            api.POST('/api/v1/policy/playground', { body: { snapshotId: id, expression: rule.expression } }),
          ),
        })),
      );
      return { enabled: rules.length, denying: results.filter((r) => r.result.matched || r.result.error) };
    },
  });
  return (
    <Loaded query={denials}>
      {(d) =>
        d.denying.length ? (
          <ul>
            {d.denying.map(({ rule, result }) => (
              <li key={rule.name}>
                <code>{rule.name}</code>: {result.error ? `fails to evaluate (${result.error})` : 'matches'} —{' '}
                {rule.description}
              </li>
            ))}
          </ul>
        ) : (
          <Empty>
            {d.enabled ? `None of the ${String(d.enabled)} enabled rules denies it now.` : 'No policy rule is enabled.'}
          </Empty>
        )
      }
    </Loaded>
  );
}

export function Checks({ located }: { located: Located }) {
  const session = useSession();
  const id = located.snapshot.id;
  return (
    <>
      <SnapshotCheck id={id} title="Licenses" what="licenses" show={licenses} />
      <SnapshotCheck id={id} title="Provenance" what="provenance" show={provenance} />
      <SnapshotCheck id={id} title="Release age" what="release-age" show={releaseAge} />
      <SnapshotCheck id={id} title="Four eyes" what="four-eyes" show={fourEyes} />
      <SnapshotCheck id={id} title="Name collisions" what="name-collisions" show={collisions} />
      {session.auditor && session.approves(located.marketplace.name) ? (
        <>
          <h2>Policy denials</h2>
          <PolicyPreview id={id} />
        </>
      ) : null}
    </>
  );
}
