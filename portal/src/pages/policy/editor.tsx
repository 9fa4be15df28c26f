// A rule's editor (admin): create, or replace a rule's description, expression and enabled flag. The
// expression is compiled by the gateway; a 422 names the compile error, shown next to the expression.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, data } from '../../api/client';
import { ProblemNotice } from '../../components/ui';
import { DryRun } from './dry-run';
import { compileErrorOf, rulesQuery, type Rule } from './queries';

export function RuleEditor({ rule, onDone }: { rule: Rule | null; onDone: () => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState(rule?.name ?? '');
  const [description, setDescription] = useState(rule?.description ?? '');
  const [expression, setExpression] = useState(rule?.expression ?? '');
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const save = useMutation({
    mutationFn: () =>
      rule
        ? data(
            api.PUT('/api/v1/policy/rules/{name}', {
              params: { path: { name: rule.name } },
              body: { description, expression, enabled },
            }),
          )
        : data(api.POST('/api/v1/policy/rules', { body: { name, description, expression, enabled } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: rulesQuery.queryKey });
      onDone();
    },
  });
  const compileError = compileErrorOf(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack rule-editor" onSubmit={submit} aria-labelledby="rule-editor-title">
      <h3 id="rule-editor-title">{rule ? `Edit rule ${rule.name}` : 'New rule'}</h3>
      <label htmlFor="rule-name">Name</label>
      <input
        id="rule-name"
        required
        value={name}
        readOnly={rule !== null}
        onChange={(e) => setName(e.target.value)}
        pattern="[a-z0-9][a-z0-9_\-]{0,62}"
        aria-describedby="rule-name-hint"
      />
      <span id="rule-name-hint" className="muted">
        Lower-case letters, digits, - and _; fixed once created.
      </span>
      <label htmlFor="rule-description">Description</label>
      <input id="rule-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <label htmlFor="rule-expression">Expression (CEL, true denies the approval)</label>
      <div className={compileError ? 'policy-expression policy-expression-error' : 'policy-expression'}>
        <textarea
          id="rule-expression"
          required
          rows={4}
          spellCheck={false}
          value={expression}
          onChange={(e) => setExpression(e.target.value)}
          aria-invalid={compileError ? true : undefined}
          aria-describedby={compileError ? 'rule-expression-error' : 'rule-expression-hint'}
          placeholder='findings.exists(f, f.severity == "HIGH" && !f.waived)'
        />
        {compileError ? (
          <p id="rule-expression-error" className="policy-compile-error" role="alert">
            {compileError}
          </p>
        ) : (
          <p id="rule-expression-hint" className="muted">
            Variables: snapshot, marketplace, findings, licenses, releaseAge, approver. Example:{' '}
            <code>snapshot.plugins.exists(p, size(p.hooks) &gt; 0)</code>
          </p>
        )}
      </div>
      <DryRun expression={expression} />
      <div className="row">
        <input id="rule-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <label htmlFor="rule-enabled">Enabled (applies at the very next approval)</label>
      </div>
      {compileError ? null : <ProblemNotice error={save.error} />}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {rule ? 'Save rule' : 'Create rule'}
        </button>
        {rule ? (
          <button type="button" className="secondary" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
