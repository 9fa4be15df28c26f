// Webhook deliveries, newest first (GET /api/v1/webhooks/deliveries?subscriber=&sink=&state=; admin):
// lifecycle webhooks and audit sink batches alike ("their attempts appear with webhook deliveries").
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Loaded, Options, StateBadge, When } from '../../components/ui';
import { Table, type Column } from '../../components/table';
import { humanize } from '../../components/labels';
import { deliveriesQuery, type Delivery, type DeliveryFilter, type DeliveryState } from './queries';

const states: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];

const columns: ReadonlyArray<Column<Delivery>> = [
  { head: 'Delivery', cell: (d) => d.id },
  { head: 'Event', cell: (d) => <code>{d.event}</code> },
  { head: 'State', cell: (d) => <StateBadge state={d.state} label={humanize(d.state)} /> },
  { head: 'Attempts', cell: (d) => d.attempts },
  {
    head: 'Last answer',
    cell: (d) => (
      <>
        {d.lastStatus ?? <span className="muted">—</span>}
        {d.lastError ? <span className="audit-error"> {d.lastError}</span> : null}
      </>
    ),
  },
  { head: 'Next attempt', cell: (d) => <When at={d.nextAttemptAt} /> },
  { head: 'Updated', cell: (d) => <When at={d.updatedAt} /> },
];

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
          <Options values={states} label={humanize} />
        </select>
      </div>
      <Loaded query={query}>
        {({ deliveries }) => (
          <Table
            rows={deliveries}
            columns={columns}
            rowKey={(d) => d.id}
            empty={`No deliveries${state ? ` ${state}` : ''}.`}
          />
        )}
      </Loaded>
    </div>
  );
}
