// The Access section: everyone's own personal tokens; machine credentials and role grants for admins
// (the server refuses them to anyone else: 403).
import { Page } from '../../components/ui';
import { useSession } from '../../api/session';
import { RoleGrants } from './grants';
import { MachineCredentials } from './machine';
import { ManagedSettings } from './managed-settings';
import { PersonalTokens } from './tokens';
import './access.css';

export default function AccessPages() {
  const session = useSession();
  return (
    <Page title="Access">
      <PersonalTokens />
      <ManagedSettings />
      {session.admin ? (
        <>
          <MachineCredentials />
          <RoleGrants />
        </>
      ) : null}
    </Page>
  );
}
