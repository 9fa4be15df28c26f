import { Page } from '../../components/ui';

export default function MarketplacesPages() {
  return (
    <Page title="Marketplaces">
      <p>Coming in this issue.</p>
    </Page>
  );
}
