// The Marketplaces section: the list (/marketplaces) and one marketplace (/marketplaces/<name>).
import { Route, Switch } from 'wouter';
import { MarketplaceDetail } from './detail';
import { MarketplaceList } from './list';
import './marketplaces.css';

export default function MarketplacesPages() {
  return (
    <Switch>
      <Route path="/">
        <MarketplaceList />
      </Route>
      <Route path="/:name">{(params) => <MarketplaceDetail name={decodeURIComponent(params.name)} />}</Route>
    </Switch>
  );
}
