// The policy rules, enabled or not (auditor or admin); an admin edits and deletes them here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../../api/client';
import { useSession } from '../../api/session';
import { ColumnHeads, Empty, Loaded, ProblemNotice, When } from '../../components/ui';
import { ConfirmButton } from '../../components/confirm-button';
import { RuleEditor } from './editor';
import { rulesQuery, type Rule } from './queries';

function RuleRow({ rule, admin, onEdit }: { rule: Rule; admin: boolean; onEdit: () => void }) {
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/api/v1/policy/rules/{name}', { params: { path: { name: rule.name } } })),
    onSuccess: () => void queries.invalidateQueries({ queryKey: rulesQuery.queryKey }),
  });
  return (
    <tr>
      <th scope="row">{rule.name}</th>
      <td>{rule.description || <span className="muted">—</span>}</td>
      <td>
        <code className="policy-expression-text">{rule.expression}</code>
      </td>
      <td>{rule.enabled ? 'enabled' : <span className="muted">disabled</span>}</td>
      <td>
        {rule.updatedBy ?? rule.createdBy}, <When at={rule.updatedAt ?? rule.createdAt} />
      </td>
      {admin ? (
        <td>
          <div className="row">
            <button type="button" className="secondary" aria-label={`Edit ${rule.name}`} onClick={onEdit}>
              Edit
            </button>
            <ConfirmButton
              label="Delete"
              name={`Delete ${rule.name}`}
              onConfirm={() => remove.mutate()}
              pending={remove.isPending}
            />
          </div>
          <ProblemNotice error={remove.error} />
        </td>
      ) : null}
    </tr>
  );
}

function RuleTable({ rules, admin, onEdit }: { rules: Rule[]; admin: boolean; onEdit: (r: Rule) => void }) {
  if (rules.length === 0) return <Empty>No policy rule: approvals are decided by vetting alone.</Empty>;
  return (
    <table>
      <ColumnHeads columns={['Name', 'Description', 'Expression', 'State', 'Last change', admin ? 'Actions' : null]} />
      <tbody>
        {rules.map((rule) => (
          <RuleRow key={rule.id} rule={rule} admin={admin} onEdit={() => onEdit(rule)} />
        ))}
      </tbody>
    </table>
  );
}

export function Rules() {
  const { admin } = useSession();
  const rules = useQuery(rulesQuery);
  const [editing, setEditing] = useState<Rule | null>(null);
  // A new editor after each save, so the "New rule" form starts empty again.
  const [generation, setGeneration] = useState(0);
  const done = () => {
    setEditing(null);
    setGeneration((g) => g + 1);
  };
  return (
    <section aria-labelledby="rules-title">
      <h2 id="rules-title">Rules</h2>
      <p className="muted">
        Every enabled rule is evaluated at approval, after vetting: a rule that matches (or fails to evaluate) refuses
        the approval. Disabling a rule is the off-switch.
      </p>
      <Loaded query={rules}>{(list) => <RuleTable rules={list} admin={admin} onEdit={setEditing} />}</Loaded>
      {admin ? (
        <RuleEditor key={editing ? `edit-${editing.name}` : `new-${generation}`} rule={editing} onDone={done} />
      ) : null}
    </section>
  );
}
