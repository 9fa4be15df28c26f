// Audit sinks (docs/webhooks.md: GET /api/v1/audit/sinks for auditors and admins; create, delete and cursor
// reset for admins). The signing secret is answered once, at creation, and shown once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api, data, type Body } from '../../api/client';
import { useSession } from '../../api/session';
import { CopyField, ProblemNotice, StateBadge } from '../../components/ui';
import { List } from '../../components/table';
import { ChangeForm, useListChange } from '../../components/change-form';
import { ConfirmButton } from '../../components/confirm-button';
import { Deliveries } from './deliveries';
import { sinksQuery, type Sink } from './queries';

type Created = Body<'/api/v1/audit/sinks', 'post'>;

function CreateSink({ onCreated }: { onCreated: (sink: Created) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [enabled, setEnabled] = useState(true);
  const create = useListChange(
    sinksQuery.queryKey,
    () => data(api.POST('/api/v1/audit/sinks', { body: { name: name.trim(), url: url.trim(), enabled } })),
    (sink) => {
      setName('');
      setUrl('');
      onCreated(sink);
    },
  );
  return (
    <ChangeForm id="create-sink" title="Create a sink" submit="Create sink" change={create}>
      <label htmlFor="sink-name">Name</label>
      <input
        id="sink-name"
        required
        pattern="[a-z0-9][a-z0-9_\-]*"
        value={name}
        onChange={(e) => setName(e.target.value)}
        aria-describedby="sink-name-help"
      />
      <span id="sink-name-help" className="muted">
        Lower-case letters, digits, - and _.
      </span>
      <label htmlFor="sink-url">Target URL</label>
      <input id="sink-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <span className="row">
        <input id="sink-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <label htmlFor="sink-enabled">Offer it batches from now on</label>
      </span>
    </ChangeForm>
  );
}

function SinkActions({ sink }: { sink: Sink }) {
  const queries = useQueryClient();
  const [position, setPosition] = useState('0');
  const refresh = () => queries.invalidateQueries({ queryKey: sinksQuery.queryKey });
  const path = { params: { path: { id: sink.id } } };
  const cursor = useMutation({
    mutationFn: () =>
      data(api.PUT('/api/v1/audit/sinks/{id}/cursor', { ...path, body: { position: Number(position) } })),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: () => data(api.PATCH('/api/v1/audit/sinks/{id}', { ...path, body: { enabled: !sink.enabled } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/api/v1/audit/sinks/{id}', path)),
    onSuccess: refresh,
  });
  const id = `sink-${String(sink.id)}-position`;
  return (
    <div className="stack">
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          cursor.mutate();
        }}
      >
        <label htmlFor={id}>Replay after entry</label>
        <input
          id={id}
          type="number"
          min={0}
          max={sink.ledgerHead}
          required
          value={position}
          onChange={(e) => setPosition(e.target.value)}
        />
        <button type="submit" className="secondary" disabled={cursor.isPending}>
          Set cursor of {sink.name}
        </button>
      </form>
      <div className="row">
        <button type="button" className="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate()}>
          {sink.enabled ? 'Switch off' : 'Switch on'} {sink.name}
        </button>
        <ConfirmButton
          label={`Delete ${sink.name}`}
          explanation="Its delivery channel goes too."
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      <ProblemNotice error={cursor.error ?? toggle.error ?? remove.error} />
    </div>
  );
}

function SinkCard({ sink, admin }: { sink: Sink; admin: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="card audit-item">
      <h3>
        {sink.name} <StateBadge state={sink.enabled ? 'enabled' : 'off'} label={sink.enabled ? 'Enabled' : 'Off'} />
      </h3>
      <p>
        <code className="audit-value">{sink.url}</code>
      </p>
      <p>
        Cursor at entry {sink.cursorPosition} of {sink.ledgerHead}:{' '}
        <strong>{sink.behind.toLocaleString('en')} behind</strong>. Batch size{' '}
        {sink.batchSize ?? 'as configured (gateway.audit-export.batch-size)'}; created by {sink.createdBy}.
      </p>
      {admin ? (
        <>
          <SinkActions sink={sink} />
          <details onToggle={(event) => setOpen(event.currentTarget.open)}>
            <summary>Deliveries of {sink.name}</summary>
            {open ? <Deliveries filter={{ sink: sink.id }} title={`Deliveries of ${sink.name}`} /> : null}
          </details>
        </>
      ) : null}
    </li>
  );
}

export function Sinks() {
  const { admin } = useSession();
  const [created, setCreated] = useState<Created | null>(null);
  let shown: ReactNode = null;
  if (created)
    shown = (
      <div className="notice notice-good" role="status">
        <p>
          Sink <strong>{created.name}</strong> created. Its signing secret is shown this once: copy it to the receiver
          now.
        </p>
        <CopyField label={`Signing secret of ${created.name}`} value={created.secret} />
      </div>
    );
  return (
    <section aria-labelledby="sinks-title">
      <h2 id="sinks-title">Audit sinks</h2>
      <p className="muted">Each enabled sink is offered the ledger in batches after its cursor.</p>
      {shown}
      <List read={sinksQuery} itemKey={(sink) => sink.id} className="audit-list" empty="No audit sink is registered.">
        {(sink) => <SinkCard sink={sink} admin={admin} />}
      </List>
      {admin ? <CreateSink onCreated={setCreated} /> : null}
    </section>
  );
}
