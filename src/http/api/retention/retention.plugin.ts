import { retentionCandidatesRoute } from './candidates.route.ts';
import { compactRoute } from './compact.route.ts';
import { retentionEvaluateRoute } from './evaluate.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Retention: candidates, an evaluation now, and compaction. */
export async function retentionPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  retentionCandidatesRoute(app, deps);
  retentionEvaluateRoute(app, deps);
  compactRoute(app, deps);
}
