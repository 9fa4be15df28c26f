// The Policy section: the rules (auditor or admin) with an editor for admins, and the playground for
// whoever may approve a snapshot.
import { useSession } from '../../api/session';
import { Page } from '../../components/ui';
import { Playground } from './playground';
import { Rules } from './rules';
import './policy.css';

export default function PolicyPages() {
  const session = useSession();
  return (
    <Page title="Policy">
      {session.auditor ? <Rules /> : null}
      {session.reviewer ? <Playground /> : null}
      {session.auditor || session.reviewer ? null : (
        <p>Policy rules are read by auditors and administrators; the playground is for approvers.</p>
      )}
    </Page>
  );
}
