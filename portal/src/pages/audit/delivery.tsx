// Sinks and webhooks: where the ledger and the lifecycle events are sent. Auditors see the sinks;
// webhook subscribers and every delivery are administrators' (docs/access.md, Roles).
import { useSession } from '../../api/session';
import { Page } from '../../components/ui';
import { Sinks } from './sinks';
import { AuditTabs } from './tabs';
import { Webhooks } from './webhooks';

export function DeliveryPage() {
  const { admin } = useSession();
  return (
    <Page title="Sinks and webhooks">
      <AuditTabs />
      <Sinks />
      {admin ? (
        <Webhooks />
      ) : (
        <section aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Webhook subscribers</h2>
          <p className="notice">Webhook subscribers and deliveries are shown to administrators.</p>
        </section>
      )}
    </Page>
  );
}
