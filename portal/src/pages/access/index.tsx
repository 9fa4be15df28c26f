import { Page } from '../../components/ui';

export default function AccessPages() {
  return (
    <Page title="Access">
      <p>Coming in this issue.</p>
    </Page>
  );
}
