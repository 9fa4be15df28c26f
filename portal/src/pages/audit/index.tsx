// The Audit section: the ledger browser with an entry's detail and the NDJSON export;
// audit sinks and webhook subscribers with their deliveries; adoption and staleness; estate, mirror and
// retention status. Auditors and administrators only (docs/access.md, Roles: the audit ledger, export, sink
// listing, adoption, the estate report, retention candidates); the actions only administrators may take are hidden
// from auditors (the server still enforces them).
import { Route, Switch } from 'wouter';
import { useSession } from '../../api/session';
import { Page } from '../../components/ui';
import { AdoptionPage } from './adoption';
import { EntryPage } from './entry';
import { LedgerPage } from './ledger';
import { DeliveryPage } from './delivery';
import { StatusPage } from './status';
import { TimeTravelPage } from './time-travel';
import './audit.css';

export default function AuditPages() {
  const session = useSession();
  if (!session.auditor)
    return (
      <Page title="Audit">
        <p className="notice">The audit pages are for auditors and administrators.</p>
      </Page>
    );
  return (
    <Switch>
      <Route path="/" component={LedgerPage} />
      <Route path="/entries/:id">{(params) => <EntryPage id={params.id} />}</Route>
      <Route path="/time-travel" component={TimeTravelPage} />
      <Route path="/delivery" component={DeliveryPage} />
      <Route path="/adoption" component={AdoptionPage} />
      <Route path="/status" component={StatusPage} />
      <Route>
        <Page title="Not found">
          <p>There is no audit page here.</p>
        </Page>
      </Route>
    </Switch>
  );
}
