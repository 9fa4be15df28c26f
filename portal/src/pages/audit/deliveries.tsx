// Webhook deliveries, newest first (GET /api/v1/webhooks/deliveries?subscriber=&sink=&state=; admin):
// lifecycle webhooks and audit sink batches alike ("their attempts appear with webhook deliveries").
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ColumnHeads, Empty, Loaded, StateBadge, When } from '../../components/ui';
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
              <ColumnHeads
                columns={['Delivery', 'Event', 'State', 'Attempts', 'Last answer', 'Next attempt', 'Updated']}
              />
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
