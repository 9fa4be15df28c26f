import { Page } from '../../components/ui';

export default function Overview() {
  return (
    <Page title="Overview">
      <p>Coming in this issue.</p>
    </Page>
  );
}
