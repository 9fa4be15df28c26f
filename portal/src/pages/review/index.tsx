// The review section: the queue of held snapshots (/review), a snapshot's page (/review/<id>) and the
// preview of one of its files (/review/<id>/file?path=<path>#L<line>). Keyed by id, so that no decision
// or form of one snapshot lingers on the page of the next.
import { Route, Switch } from 'wouter';
import './review.css';
import { Page } from '../../components/ui';
import { FilePreview } from './file-preview';
import { Queue } from './queue';
import { SnapshotPage } from './snapshot-page';

function NoSuchPage() {
  return (
    <Page title="Not found">
      <p>There is no review page here.</p>
    </Page>
  );
}

export default function ReviewPages() {
  return (
    <div className="review">
      <Switch>
        <Route path="/" component={Queue} />
        <Route path="/:id/file">{(params) => <FilePreview key={params.id} id={Number(params.id)} />}</Route>
        <Route path="/:id">{(params) => <SnapshotPage key={params.id} id={Number(params.id)} />}</Route>
        <Route component={NoSuchPage} />
      </Switch>
    </div>
  );
}
