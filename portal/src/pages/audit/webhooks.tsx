// Webhook subscribers (GET/POST /api/v1/webhooks, DELETE /api/v1/webhooks/{id}; admin) with their
// deliveries. The signing secret is answered once, at creation, and shown once.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data, type Body } from '../../api/client';
import { CopyField, Loaded, ProblemNotice, StateBadge, When } from '../../components/ui';
import { List } from '../../components/table';
import { useToggleSet } from '../../components/toggle-set';
import { ChangeForm, useListChange } from '../../components/change-form';
import { ConfirmButton } from '../../components/confirm-button';
import { Deliveries } from './deliveries';
import { eventKindsQuery, subscribersQuery, type Subscriber } from './queries';

type Created = Body<'/api/v1/webhooks', 'post'>;

function EventKinds({ chosen, toggle }: { chosen: ReadonlySet<string>; toggle: (kind: string) => void }) {
  const kinds = useQuery(eventKindsQuery());
  return (
    <fieldset className="audit-kinds">
      <legend>Events</legend>
      <Loaded query={kinds}>
        {(list) => (
          <>
            {list.map(({ kind, description }) => (
              <span key={kind} className="row">
                <input id={`kind-${kind}`} type="checkbox" checked={chosen.has(kind)} onChange={() => toggle(kind)} />
                <label htmlFor={`kind-${kind}`}>
                  <code>{kind}</code> <span className="muted">{description}</span>
                </label>
              </span>
            ))}
          </>
        )}
      </Loaded>
    </fieldset>
  );
}

function CreateSubscriber({ onCreated }: { onCreated: (subscriber: Created) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const events = useToggleSet<string>();
  const body = () => ({ url: url.trim(), events: [...events.items], description: description.trim() || null });
  const create = useListChange(
    subscribersQuery.queryKey,
    () => data(api.POST('/api/v1/webhooks', { body: body() })),
    (subscriber) => {
      setUrl('');
      setDescription('');
      events.clear();
      onCreated(subscriber);
    },
  );
  return (
    <ChangeForm id="create-webhook" title="Add a subscriber" submit="Add subscriber" change={create}>
      <label htmlFor="webhook-url">Receiver URL</label>
      <input id="webhook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <label htmlFor="webhook-description">Description (optional)</label>
      <input id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <EventKinds chosen={events.items} toggle={events.toggle} />
    </ChangeForm>
  );
}

function SubscriberCard({ subscriber }: { subscriber: Subscriber }) {
  const queries = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: subscriber.id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: subscribersQuery.queryKey }),
  });
  return (
    <li className="card audit-item">
      <h3>
        <code className="audit-value">{subscriber.url}</code>{' '}
        <StateBadge state={subscriber.enabled ? 'enabled' : 'off'} label={subscriber.enabled ? 'Enabled' : 'Off'} />
      </h3>
      {subscriber.description ? <p>{subscriber.description}</p> : null}
      <p>
        Events:{' '}
        {subscriber.events.map((kind) => (
          <code key={kind}>{kind} </code>
        ))}
        <br />
        Added by {subscriber.createdBy}, <When at={subscriber.createdAt} />.
      </p>
      <ConfirmButton
        label={`Delete subscriber ${String(subscriber.id)}`}
        explanation="It receives nothing more."
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <ProblemNotice error={remove.error} />
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>Deliveries to subscriber {subscriber.id}</summary>
        {open ? (
          <Deliveries
            filter={{ subscriber: subscriber.id }}
            title={`Deliveries to subscriber ${String(subscriber.id)}`}
          />
        ) : null}
      </details>
    </li>
  );
}

export function Webhooks() {
  const [created, setCreated] = useState<Created | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook subscribers</h2>
      <p className="muted">
        Lifecycle events are delivered with the Standard Webhooks headers; receivers de-duplicate on the delivery id.
      </p>
      {created ? (
        <div className="notice notice-good" role="status">
          <p>
            Subscriber <code>{created.url}</code> added. Its signing secret is shown this once: copy it to the receiver
            now.
          </p>
          <CopyField label="Webhook signing secret" value={created.secret} />
        </div>
      ) : null}
      <List
        read={subscribersQuery}
        itemKey={(subscriber) => subscriber.id}
        className="audit-list"
        empty="No webhook subscriber is registered."
      >
        {(subscriber) => <SubscriberCard subscriber={subscriber} />}
      </List>
      <CreateSubscriber onCreated={setCreated} />
    </section>
  );
}
