// Webhook subscribers (GET/POST /api/v1/webhooks, DELETE /api/v1/webhooks/{id}; admin) with their
// deliveries. The signing secret is answered once, at creation, and shown once.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, data, type Body } from '../../api/client';
import { CopyField, Empty, Loaded, ProblemNotice, StateBadge, When } from '../../components/ui';
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
  const queries = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<ReadonlySet<string>>(new Set());
  const toggle = (kind: string) =>
    setEvents((current) => {
      const next = new Set(current);
      if (!next.delete(kind)) next.add(kind);
      return next;
    });
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/v1/webhooks', {
          body: { url: url.trim(), events: [...events], description: description.trim() || null },
        }),
      ),
    onSuccess: async (subscriber) => {
      setUrl('');
      setDescription('');
      setEvents(new Set());
      onCreated(subscriber);
      await queries.invalidateQueries({ queryKey: subscribersQuery.queryKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h3 id="create-webhook-title">Add a subscriber</h3>
      <label htmlFor="webhook-url">Receiver URL</label>
      <input id="webhook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <label htmlFor="webhook-description">Description (optional)</label>
      <input id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <EventKinds chosen={events} toggle={toggle} />
      <ProblemNotice error={create.error} />
      <div>
        <button type="submit" disabled={create.isPending}>
          Add subscriber
        </button>
      </div>
    </form>
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
  const query = useQuery(subscribersQuery);
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
      <Loaded query={query}>
        {(subscribers) =>
          subscribers.length === 0 ? (
            <Empty>No webhook subscriber is registered.</Empty>
          ) : (
            <ul className="audit-list">
              {subscribers.map((subscriber) => (
                <SubscriberCard key={subscriber.id} subscriber={subscriber} />
              ))}
            </ul>
          )
        }
      </Loaded>
      <CreateSubscriber onCreated={setCreated} />
    </section>
  );
}
