// The Access section, one tab each: everyone's own personal tokens and the managed settings for clients;
// machine credentials and role grants for admins (the server refuses them to anyone else: 403). Each tab
// has its own address, so a link opens it; role grants are read (and the read recorded) only on their tab.
import type { ReactNode } from 'react';
import { Route, Switch } from 'wouter';
import { useSession } from '../../api/session';
import { SectionTabs } from '../../components/tabs';
import { Page } from '../../components/ui';
import { RoleGrants } from './grants';
import { MachineCredentials } from './machine';
import { ManagedSettings } from './managed-settings';
import { PersonalTokens } from './tokens';
import './access.css';

function AccessTabs() {
  const session = useSession();
  const tabs = [
    { href: '/', label: 'Personal tokens' },
    { href: '/managed-settings', label: 'Managed settings' },
    ...(session.admin
      ? [
          { href: '/machine', label: 'Machine credentials' },
          { href: '/roles', label: 'Role grants' },
        ]
      : []),
  ];
  return <SectionTabs label="Access pages" base="/access" tabs={tabs} />;
}

function AccessPage({ children }: { children: ReactNode }) {
  return (
    <Page title="Access">
      <AccessTabs />
      {children}
    </Page>
  );
}

function AdminsOnly({ children }: { children: ReactNode }) {
  const session = useSession();
  return session.admin ? <>{children}</> : <p className="notice">This page is for administrators.</p>;
}

export default function AccessPages() {
  return (
    <AccessPage>
      <Switch>
        <Route path="/" component={PersonalTokens} />
        <Route path="/managed-settings" component={ManagedSettings} />
        <Route path="/machine">
          <AdminsOnly>
            <MachineCredentials />
          </AdminsOnly>
        </Route>
        <Route path="/roles">
          <AdminsOnly>
            <RoleGrants />
          </AdminsOnly>
        </Route>
        <Route>
          <p className="notice">There is no access page here.</p>
        </Route>
      </Switch>
    </AccessPage>
  );
}
