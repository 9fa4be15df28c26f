import { Page } from '../../components/ui';

export default function ReviewPages() {
  return (
    <Page title="Review">
      <p>Coming in this issue.</p>
    </Page>
  );
}
