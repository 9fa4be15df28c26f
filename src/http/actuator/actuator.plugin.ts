import { apiDocsRoute } from './api-docs.route.ts';
import { healthRoute } from './health.route.ts';
import { problemsRoute } from './problems.route.ts';
import { prometheusRoute } from './prometheus.route.ts';
import { sbomRoute } from './sbom.route.ts';
import type { AreaOptions, HttpApp } from '../http-deps.ts';

/** The operational endpoints: health, the API document, the problem pages, Prometheus metrics and the SBOM. */
export async function actuatorPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  healthRoute(app, deps);
  apiDocsRoute(app, deps);
  problemsRoute(app, deps);
  prometheusRoute(app, deps);
  sbomRoute(app);
}
