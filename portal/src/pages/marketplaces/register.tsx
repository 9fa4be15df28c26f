// Registering a marketplace (admin): POST /api/v1/marketplaces with {name, url?, origin?, pushPolicy?}.
// Spec, Registration rules: upstream (the default) requires a url, hosted refuses one; pushPolicy applies
// to hosted only; the upstream is read before anything is registered (502 with reason and nextStep). What the
// gateway found wrong with the upstream's marketplace comes back as warnings, shown on the new marketplace's page.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { api, data } from '../../api/client';
import { ActionProblem } from '../../components/action-problem';
import { setFlash } from './flash';
import { marketplacesKey } from './queries';

type Origin = 'upstream' | 'hosted';
type PushPolicy = 'append-only' | 'allow-rewrite';

const origins: ReadonlyArray<{ origin: Origin; label: string }> = [
  { origin: 'upstream', label: 'Upstream: the gateway reads a repository’s default branch' },
  { origin: 'hosted', label: 'Hosted: publishers push to the gateway' },
];

function OriginChoice({ origin, onChange }: { origin: Origin; onChange: (o: Origin) => void }) {
  return (
    <fieldset className="mp-fieldset">
      <legend>Origin</legend>
      {origins.map(({ origin: option, label }) => (
        <div className="row" key={option}>
          <input
            type="radio"
            id={`register-origin-${option}`}
            name="origin"
            checked={origin === option}
            onChange={() => onChange(option)}
          />
          <label htmlFor={`register-origin-${option}`}>{label}</label>
        </div>
      ))}
    </fieldset>
  );
}

export function RegisterMarketplace({ onCancel }: { onCancel: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [origin, setOrigin] = useState<Origin>('upstream');
  const [url, setUrl] = useState('');
  const [pushPolicy, setPushPolicy] = useState<PushPolicy>('append-only');
  const register = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/v1/marketplaces', {
          body:
            origin === 'upstream'
              ? { name: name.trim(), url: url.trim(), origin }
              : { name: name.trim(), origin, pushPolicy },
        }),
      ),
    onSuccess: async (created) => {
      await queries.invalidateQueries({ queryKey: marketplacesKey });
      setFlash(`Registered ${created.name}.`, created.warnings);
      navigate(`/${created.name}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate();
  };
  return (
    <section aria-labelledby="register-title" className="mp-panel">
      <h2 id="register-title">Register a marketplace</h2>
      <form className="stack" onSubmit={submit}>
        <label htmlFor="register-name">Name</label>
        <input
          id="register-name"
          required
          autoFocus
          pattern="[a-z0-9][a-z0-9_\-]{0,62}"
          aria-describedby="register-name-help"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <span id="register-name-help" className="muted">
          Lower-case letters, digits, - and _; it is the /git/&lt;name&gt; path clients clone.
        </span>
        <OriginChoice origin={origin} onChange={setOrigin} />
        {origin === 'upstream' ? (
          <>
            <label htmlFor="register-url">Upstream clone URL</label>
            <input
              id="register-url"
              type="url"
              required
              placeholder="https://github.com/owner/marketplace.git"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          </>
        ) : (
          <>
            <label htmlFor="register-push-policy">Push policy</label>
            <select
              id="register-push-policy"
              value={pushPolicy}
              onChange={(e) => setPushPolicy(e.target.value as PushPolicy)}
            >
              <option value="append-only">Append only (non-fast-forward pushes refused)</option>
              <option value="allow-rewrite">Allow rewrite (both tips recorded on the ledger)</option>
            </select>
          </>
        )}
        <ActionProblem error={register.error} />
        <div className="row">
          <button type="submit" disabled={register.isPending}>
            {register.isPending ? 'Registering…' : 'Register'}
          </button>
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
