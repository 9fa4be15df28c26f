// The vetting report (GET /api/v1/snapshots/{id}/vetting): the effective outcome, the blocking findings
// no waiver covers (each links to its line in the file preview and may be waived), every connector's
// verdict with its findings, the findings waivers suppress, and the marketplace's waivers.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { useSession } from '../../api/session';
import { humanize, labelFrom, verdictLabels, vettingOutcomeLabels } from '../../components/labels';
import { ColumnHeads, Empty, Loaded, StateBadge, When } from '../../components/ui';
import { closed } from './decided';
import { fileHref, severityRank, vettingQuery, type Located, type Snapshot, type VettingReport } from './queries';
import { WaiverForm, Waivers, type Waivable } from './waivers';

const outcomeText: Readonly<Record<VettingReport['outcome'], string>> = {
  CLEAR: 'Nothing blocks approval.',
  CLEAR_WITH_WAIVERS: 'Every blocking finding is covered by an active waiver.',
  BLOCKED: 'Approval is refused until every blocking finding is waived (or an admin overrides).',
};

/** What the outcome means for this snapshot: it gates an approval only while one can still be made. */
function outcomeMeaning(outcome: VettingReport['outcome'], snapshot: Snapshot): string {
  if (closed(snapshot)) return 'The snapshot is rejected: no outcome makes it approvable, and no waiver is taken.';
  if (snapshot.state === 'approved')
    return outcome === 'BLOCKED'
      ? 'The snapshot is approved; a re-vet may revoke it unless its blocking findings are waived.'
      : 'The snapshot is approved.';
  return outcomeText[outcome];
}

/** `<path>@<commit>:<line>`: a finding in history approval would expose, not in the snapshot's tree. */
const inHistory = (location: string) => /@[0-9a-f]{40,64}(:\d+)?$/.test(location);

function FindingLink({ id, location }: { id: number; location: string }) {
  if (inHistory(location))
    return <code title="in the history approval would serve, not in the snapshot's files">{location}</code>;
  return (
    <Link href={fileHref(id, location)}>
      <code>{location}</code>
    </Link>
  );
}

function Uncovered({ report, id, canWaive }: { report: VettingReport; id: number; canWaive: boolean }) {
  const [waiving, setWaiving] = useState<Waivable | null>(null);
  if (!report.uncovered.length) return null;
  return (
    <>
      <h2>Blocking findings</h2>
      <table>
        <ColumnHeads columns={['Severity', 'Rule', 'Where', 'Finding', canWaive ? 'Waiver' : null]} />
        <tbody>
          {report.uncovered.map((f, i) => (
            <tr key={`${f.ruleId}-${f.location}-${String(i)}`}>
              <td>
                <StateBadge state={f.severity} label={humanize(f.severity)} />
              </td>
              <td>
                <code>{f.ruleId}</code> <span className="muted">({f.connector})</span>
              </td>
              <td>
                <FindingLink id={id} location={f.location} />
              </td>
              <td>{f.message}</td>
              {canWaive ? (
                <td>
                  <button type="button" className="secondary" onClick={() => setWaiving(f)}>
                    Waive {f.ruleId}
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {waiving ? <WaiverForm id={id} finding={waiving} onDone={() => setWaiving(null)} /> : null}
    </>
  );
}

function Verdicts({ report, id }: { report: VettingReport; id: number }) {
  if (!report.run) return <Empty>This snapshot was never vetted: its outcome is blocked until a run completes.</Empty>;
  return (
    <>
      <h2>Connectors</h2>
      <p className="muted">
        Run {report.run.runId} ({humanize(report.run.trigger).toLowerCase()}), finished{' '}
        <When at={report.run.finishedAt} />; the connectors concluded{' '}
        {labelFrom(vettingOutcomeLabels, report.recordedOutcome).toLowerCase()}.
      </p>
      {report.run.verdicts.map((verdict) => (
        <div key={verdict.verdictId} className="verdict">
          <h3>
            {verdict.connector} <StateBadge state={verdict.state} label={labelFrom(verdictLabels, verdict.state)} />
          </h3>
          {verdict.detail ? <p>{verdict.detail}</p> : null}
          {verdict.findings.length ? (
            <ul>
              {[...verdict.findings]
                .sort((a, b) => (severityRank[a.severity] ?? 9) - (severityRank[b.severity] ?? 9))
                .map((f, i) => (
                  <li key={i}>
                    <StateBadge state={f.severity} label={humanize(f.severity)} /> <code>{f.id}</code> at{' '}
                    <FindingLink id={id} location={f.location} />: {f.message}
                  </li>
                ))}
            </ul>
          ) : (
            <p className="muted">No findings.</p>
          )}
        </div>
      ))}
    </>
  );
}

function Suppressed({ report, id }: { report: VettingReport; id: number }) {
  if (!report.suppressed.length) return null;
  return (
    <>
      <h2>Waived findings</h2>
      <ul>
        {report.suppressed.map((s, i) => (
          <li key={i}>
            <code>{s.ruleId}</code> ({s.connector}) at <FindingLink id={id} location={s.location} />: waiver{' '}
            {s.waiverId} by {s.approvedBy}, until <When at={s.expiresAt} />
          </li>
        ))}
      </ul>
    </>
  );
}

export function VettingReportView({ located }: { located: Located }) {
  const session = useSession();
  const { marketplace, snapshot } = located;
  const report = useQuery(vettingQuery(snapshot.id));
  // A rejected snapshot takes no waiver (the API answers 409): no form is offered. Revoking stays possible.
  const canRevoke = session.approves(marketplace.name);
  const canWaive = canRevoke && !closed(snapshot);
  return (
    <Loaded query={report}>
      {(r) => (
        <>
          <p
            className={
              closed(snapshot) ? 'notice' : r.outcome === 'BLOCKED' ? 'notice notice-error' : 'notice notice-good'
            }
          >
            <strong>Vetting outcome: {labelFrom(vettingOutcomeLabels, r.outcome)}</strong>.{' '}
            {outcomeMeaning(r.outcome, snapshot)}
          </p>
          <Uncovered report={r} id={snapshot.id} canWaive={canWaive} />
          <Suppressed report={r} id={snapshot.id} />
          <Verdicts report={r} id={snapshot.id} />
          <Waivers marketplace={marketplace.name} id={snapshot.id} canRevoke={canRevoke} />
        </>
      )}
    </Loaded>
  );
}
