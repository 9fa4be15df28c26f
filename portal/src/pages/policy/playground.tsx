// The playground (docs/policy-variables.md): an expression, or every rule, evaluated against a snapshot as if it
// were approved now; nothing is stored or recorded. The caller must be allowed to approve the snapshot.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../api/session';
import { badgeClass, ColumnHeads, Loaded, ProblemNotice } from '../../components/ui';
import { marketplacesQuery, playground, rulesQuery, type Marketplace, type Rule, type Verdict } from './queries';

type Decision = Readonly<{ label: string; rule: boolean; expression: string; enabled: boolean; verdict: Verdict }>;

/** A rule decides when it is enabled and matches or fails to evaluate (as enforcement at approve decides). */
const decides = (d: Decision): boolean =>
  d.rule && d.enabled && (d.verdict.matched === true || d.verdict.error !== undefined);

function DecisionText({ verdict }: { verdict: Verdict }) {
  if (verdict.error !== undefined) return <span className={badgeClass('fail')}>error: {verdict.error}</span>;
  return verdict.matched ? (
    <span className={badgeClass('blocked')}>matches: denies approval</span>
  ) : (
    <span className={badgeClass('pass')}>no match: allows</span>
  );
}

type Choice = Readonly<{ id: number; label: string }>;

function snapshotChoices(marketplaces: Marketplace[], approves: (m: string) => boolean): Choice[] {
  return marketplaces
    .filter((m) => approves(m.name))
    .flatMap((m) =>
      m.snapshots
        .filter((s) => !s.deleted_at)
        .sort((a, b) => b.id - a.id)
        .map((s) => ({ id: s.id, label: `${m.name} · snapshot ${s.id} · ${s.state} · ${s.sha.slice(0, 12)}` })),
    );
}

function Decisions({ decisions }: { decisions: readonly Decision[] }) {
  return (
    <table>
      <ColumnHeads columns={['Rule', 'Expression', 'Decision']} />
      <tbody>
        {decisions.map((d) => (
          <tr key={d.label}>
            <th scope="row">
              {d.label}
              {d.enabled ? null : <span className="muted"> (disabled)</span>}
            </th>
            <td>
              <code className="policy-expression-text">{d.expression}</code>
            </td>
            <td>
              <DecisionText verdict={d.verdict} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function PlaygroundForm({ choices, rules }: { choices: Choice[]; rules: readonly Rule[] }) {
  const [snapshot, setSnapshot] = useState(String(choices[0]?.id ?? ''));
  const [expression, setExpression] = useState('');
  const evaluate = useMutation({
    mutationFn: async (): Promise<Decision[]> => {
      const id = Number(snapshot);
      const asked = expression.trim()
        ? [
            {
              label: 'This expression',
              rule: false,
              expression,
              enabled: true,
              verdict: await playground(id, expression),
            },
          ]
        : [];
      const each = await Promise.all(
        rules.map(async (r) => ({
          label: r.name,
          rule: true,
          expression: r.expression,
          enabled: r.enabled,
          verdict: await playground(id, r.expression),
        })),
      );
      return [...asked, ...each];
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    evaluate.mutate();
  };
  if (choices.length === 0) return <p className="muted">There is no snapshot you may approve to try rules against.</p>;
  const denied = (evaluate.data ?? []).filter(decides);
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="playground-title">
      <label htmlFor="playground-snapshot">Snapshot</label>
      <select id="playground-snapshot" value={snapshot} onChange={(e) => setSnapshot(e.target.value)}>
        {choices.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
      <label htmlFor="playground-expression">Expression to try (optional; every rule is evaluated too)</label>
      <textarea
        id="playground-expression"
        rows={3}
        spellCheck={false}
        value={expression}
        onChange={(e) => setExpression(e.target.value)}
      />
      <div>
        <button type="submit" disabled={evaluate.isPending}>
          Evaluate
        </button>
      </div>
      <ProblemNotice error={evaluate.error} />
      {evaluate.data ? (
        <div className="playground-result" role="status">
          <p>
            <strong>
              {denied.length > 0
                ? `Approving now would be refused by ${denied.map((d) => d.label).join(', ')}.`
                : 'No enabled rule would refuse approving this snapshot now.'}
            </strong>
          </p>
          {evaluate.data.length > 0 ? <Decisions decisions={evaluate.data} /> : null}
        </div>
      ) : null}
    </form>
  );
}

export function Playground() {
  const session = useSession();
  const marketplaces = useQuery(marketplacesQuery());
  // The rule list is for auditors and admins; an approver tries expressions of their own.
  const rules = useQuery({ ...rulesQuery, enabled: session.auditor });
  return (
    <section aria-labelledby="playground-title">
      <h2 id="playground-title">Playground</h2>
      <p className="muted">Evaluates against a snapshot as if it were approved now. Nothing is stored or recorded.</p>
      <Loaded query={marketplaces}>
        {(list) => (
          <PlaygroundForm
            choices={snapshotChoices(list, session.approves)}
            rules={session.auditor ? (rules.data ?? []) : []}
          />
        )}
      </Loaded>
    </section>
  );
}
