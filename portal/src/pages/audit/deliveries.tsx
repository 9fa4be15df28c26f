// Webhook deliveries, newest first (GET /api/v1/webhooks/deliveries?subscriber=&sink=&state=; admin):
// lifecycle webhooks and audit sink batches alike ("their attempts appear with webhook deliveries").
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Empty, Loaded, StateBadge, When } from '../../components/ui';
import { humanize } from '../../components/labels';
import { deliveriesQuery, type DeliveryFilter, type DeliveryState } from './queries';

const states: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];

export function Deliveries({ filter, title }: { filter: Omit<DeliveryFilter, 'state'>; title: string }) {
  const [state, setState] = useState<DeliveryState | ''>('');
  const query = useQuery(deliveriesQuery({ ...filter, ...(state ? { state } : {}) }));
  const id = `deliveries-${String(filter.subscriber ?? 'x')}-${String(filter.sink ?? 'x')}`;
  return (
    <div className="audit-deliveries">
      <div className="row">
        <label htmlFor={`${id}-state`}>{title}: state</label>
        <select id={`${id}-state`} value={state} onChange={(e) => setState(e.target.value as DeliveryState | '')}>
          <option value="">Any</option>
          {states.map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </select>
      </div>
      <Loaded query={query}>
        {({ deliveries }) =>
          deliveries.length === 0 ? (
            <Empty>No deliveries{state ? ` ${state}` : ''}.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event</th>
                  <th scope="col">State</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.id}>
                    <td>{d.id}</td>
                    <td>
                      <code>{d.event}</code>
                    </td>
                    <td>
                      <StateBadge state={d.state} label={humanize(d.state)} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>
                      {d.lastStatus ?? <span className="muted">—</span>}
                      {d.lastError ? <span className="audit-error"> {d.lastError}</span> : null}
                    </td>
                    <td>
                      <When at={d.nextAttemptAt} />
                    </td>
                    <td>
                      <When at={d.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </div>
  );
}
