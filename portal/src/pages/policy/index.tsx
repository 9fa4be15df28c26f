import { Page } from '../../components/ui';

export default function PolicyPages() {
  return (
    <Page title="Policy">
      <p>Coming in this issue.</p>
    </Page>
  );
}
