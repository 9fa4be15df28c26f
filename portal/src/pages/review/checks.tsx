// The other checks of a snapshot, each from its own read: licenses, provenance, release age, four-eyes,
// name collisions, and (for a session that may read the rules) the enabled policy rules that would deny
// approving it now, each evaluated in the playground (nothing stored or recorded).
import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useSession } from '../../api/session';
import { humanize } from '../../components/labels';
import { ColumnHeads, Empty, Loaded, Sha, StateBadge, When } from '../../components/ui';
import { snapshotKey, snapshotQuery, type Located } from './queries';
import { Facts } from './facts';

function Licenses({ id }: { id: number }) {
  const report = useQuery(snapshotQuery(id, 'licenses'));
  return (
    <Loaded query={report}>
      {(r) =>
        r.licenses.length ? (
          <table>
            <ColumnHeads columns={['License', 'Source', 'Where', 'Evaluation']} />
            <tbody>
              {r.licenses.map((l, i) => (
                <tr key={i}>
                  <td>{l.spdxId ?? <span className="muted">unknown ({l.declared ?? 'not declared'})</span>}</td>
                  <td>{l.source}</td>
                  <td>
                    <code>{l.location}</code>
                  </td>
                  <td>
                    <StateBadge state={l.evaluation === 'OK' ? 'pass' : l.evaluation} label={humanize(l.evaluation)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty>No license information at all.</Empty>
        )
      }
    </Loaded>
  );
}

const days = (ms: number): string =>
  ms >= 86_400_000 ? `${(ms / 86_400_000).toFixed(1)} days` : `${(ms / 3_600_000).toFixed(1)} hours`;

function ReleaseAge({ id }: { id: number }) {
  const age = useQuery(snapshotQuery(id, 'release-age'));
  return (
    <Loaded query={age}>
      {(a) => (
        <Facts
          rows={[
            ['Age', days(a.ageMs)],
            ['Minimum release age', a.minimumReleaseAgeMs ? days(a.minimumReleaseAgeMs) : 'none'],
            ['Approvable', a.elapsed ? 'yes' : <When key="at" at={a.approvableAt} />],
          ]}
        />
      )}
    </Loaded>
  );
}

function Provenance({ id }: { id: number }) {
  const p = useQuery(snapshotQuery(id, 'provenance'));
  return (
    <Loaded query={p}>
      {(v) => (
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
      )}
    </Loaded>
  );
}

function FourEyes({ id }: { id: number }) {
  const f = useQuery(snapshotQuery(id, 'four-eyes'));
  return (
    <Loaded query={f}>
      {(v) => (
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
      )}
    </Loaded>
  );
}

function Collisions({ id }: { id: number }) {
  const c = useQuery(snapshotQuery(id, 'name-collisions'));
  return (
    <Loaded query={c}>
      {(v) =>
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
        )
      }
    </Loaded>
  );
}

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
      <h2>Licenses</h2>
      <Licenses id={id} />
      <h2>Provenance</h2>
      <Provenance id={id} />
      <h2>Release age</h2>
      <ReleaseAge id={id} />
      <h2>Four eyes</h2>
      <FourEyes id={id} />
      <h2>Name collisions</h2>
      <Collisions id={id} />
      {session.auditor && session.approves(located.marketplace.name) ? (
        <>
          <h2>Policy denials</h2>
          <PolicyPreview id={id} />
        </>
      ) : null}
    </>
  );
}
