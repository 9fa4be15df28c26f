import type { AreaOptions, HttpApp } from '../../http-deps.ts';
import { decisionRoutes } from './decisions.route.ts';
import { deletionRoutes } from './deletion.route.ts';
import { snapshotCapabilitiesRoute } from './snapshot-capabilities.route.ts';
import { snapshotContentDiffRoute } from './snapshot-content-diff.route.ts';
import { snapshotContentRoute } from './snapshot-content.route.ts';
import { snapshotDiffRoute } from './snapshot-diff.route.ts';
import { snapshotFetchersRoute } from './snapshot-fetchers.route.ts';
import { snapshotFileRoute } from './snapshot-file.route.ts';
import { snapshotFilesRoute } from './snapshot-files.route.ts';
import { snapshotFourEyesRoute } from './snapshot-four-eyes.route.ts';
import { snapshotLicensesRoute } from './snapshot-licenses.route.ts';
import { snapshotNameCollisionsRoute } from './snapshot-name-collisions.route.ts';
import { snapshotProvenanceRoute } from './snapshot-provenance.route.ts';
import { snapshotReleaseAgeRoute } from './snapshot-release-age.route.ts';
import { snapshotTreeRoute } from './snapshot-tree.route.ts';

/**
 * Snapshots: the decisions (approve, reject), deletion and restore, and every read of one snapshot: the
 * previews (approver standing), the reports and the content reads.
 */
export async function snapshotsPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  decisionRoutes(app, deps);
  deletionRoutes(app, deps);
  snapshotFilesRoute(app, deps);
  snapshotFileRoute(app, deps);
  snapshotDiffRoute(app, deps);
  snapshotFetchersRoute(app, deps);
  snapshotProvenanceRoute(app, deps);
  snapshotReleaseAgeRoute(app, deps);
  snapshotFourEyesRoute(app, deps);
  snapshotTreeRoute(app, deps);
  snapshotContentRoute(app, deps);
  snapshotContentDiffRoute(app, deps);
  snapshotCapabilitiesRoute(app, deps);
  snapshotLicensesRoute(app, deps);
  snapshotNameCollisionsRoute(app, deps);
}
