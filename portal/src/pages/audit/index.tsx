import { Page } from '../../components/ui';

export default function AuditPages() {
  return (
    <Page title="Audit">
      <p>Coming in this issue.</p>
    </Page>
  );
}
