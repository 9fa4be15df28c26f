// What was decided about a snapshot that is no longer waiting: approved, rejected (by a reviewer, or by the
// gateway at ingest because its marketplace.json broke the manifest rules) or revoked; by whom, when, why,
// and what to do next. A rejected snapshot is never approved: the way on is a new commit, ingested again.
import { Link } from 'wouter';
import { rejectedAtIngest } from '../../api/marketplaces';
import { useSession } from '../../api/session';
import { IngestNow } from '../../components/ingest-now';
import { When } from '../../components/ui';
import type { Located, Snapshot } from './queries';

/** Rejected: no waiver, approval or override can serve it (the API refuses each with 409). */
export const closed = (s: Snapshot): boolean => s.state === 'rejected';

/** Who decided, for the summary: a principal, or the gateway for a snapshot it rejected at ingest. */
export function DecidedBy({ snapshot }: { snapshot: Snapshot }) {
  if (rejectedAtIngest(snapshot))
    return (
      <>
        The gateway, at ingest (<When at={snapshot.createdAt} />)
      </>
    );
  if (!snapshot.decidedBy) return <span className="muted">Not yet</span>;
  return (
    <>
      {snapshot.decidedBy} (<When at={snapshot.decidedAt} />)
    </>
  );
}

type Facts = Readonly<{ what: string; by: string; at: string | null; why: string | null }>;

function factsOf(s: Snapshot): Facts | null {
  if (rejectedAtIngest(s)) return { what: 'Rejected at ingest', by: 'the gateway', at: s.createdAt, why: s.violation };
  if (s.state === 'rejected')
    return { what: 'Rejected', by: s.decidedBy ?? 'unknown', at: s.decidedAt, why: s.decisionReason ?? null };
  if (s.state === 'approved')
    return { what: 'Approved', by: s.decidedBy ?? 'unknown', at: s.decidedAt, why: s.decisionReason ?? null };
  if (s.state === 'revoked')
    return { what: 'Revoked', by: s.revokedBy ?? 'unknown', at: s.revokedAt ?? null, why: s.violation };
  return null;
}

function NextStep({ located }: { located: Located }) {
  const session = useSession();
  const { marketplace, snapshot } = located;
  const canIngest = session.approves(marketplace.name);
  const ingest = canIngest ? (
    <div className="decided-ingest">
      <IngestNow name={marketplace.name} />
    </div>
  ) : (
    <p className="muted">An approver of {marketplace.name}, or an admin, can ingest it again.</p>
  );
  // A rejected snapshot is never served: what comes next is a fixed commit, ingested again.
  const fix = rejectedAtIngest(snapshot) ? (
    <>
      fix <code>.claude-plugin/marketplace.json</code> on the upstream’s default branch so that it is valid, then ingest
      again: the new commit is held for review.
    </>
  ) : snapshot.state === 'rejected' ? (
    <>
      this snapshot is never served, and no waiver or approval can change that. Have the findings fixed upstream, then
      ingest again to capture a new commit for review (waive its findings there if they are acceptable).
    </>
  ) : null;
  if (fix)
    return (
      <>
        <p>
          <strong>Next:</strong> {fix}
        </p>
        {ingest}
      </>
    );
  if (snapshot.state === 'revoked')
    return (
      <p>
        <strong>Next:</strong> it is no longer served. It may be approved again once nothing blocks it, or ingest a
        fixed commit from <Link href={`~/marketplaces/${marketplace.name}`}>{marketplace.name}</Link>.
      </p>
    );
  return (
    <p>
      {marketplace.servedSha === snapshot.sha
        ? `The facade serves this commit to every user of ${marketplace.name}.`
        : `A later approval of ${marketplace.name} is served instead.`}
    </p>
  );
}

/** The decision on a snapshot that is not held, in one panel; nothing for a held one. */
export function DecisionRecord({ located }: { located: Located }) {
  const record = factsOf(located.snapshot);
  if (!record) return null;
  const failed = located.snapshot.state === 'rejected' || located.snapshot.state === 'revoked';
  return (
    <section className={`decided notice ${failed ? 'notice-error' : 'notice-good'}`} aria-labelledby="decided-title">
      <h2 id="decided-title">{record.what}</h2>
      <dl className="decided-facts">
        <dt>By</dt>
        <dd>{record.by}</dd>
        <dt>When</dt>
        <dd>
          <When at={record.at} />
        </dd>
        {located.snapshot.state === 'approved' ? (
          record.why ? (
            <>
              <dt>Over a blocked outcome, because</dt>
              <dd>{record.why}</dd>
            </>
          ) : null
        ) : (
          <>
            <dt>Why</dt>
            <dd>{record.why ?? <span className="muted">No reason was given.</span>}</dd>
          </>
        )}
      </dl>
      <NextStep located={located} />
    </section>
  );
}
