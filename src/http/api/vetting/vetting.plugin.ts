import type { AreaOptions, HttpApp } from '../../http-deps.ts';
import { chainSettingsRoutes } from './chain-settings.route.ts';
import { rerunVettingRoute } from './rerun-vetting.route.ts';
import { revetRoutes } from './revet.route.ts';
import { vettingReportRoute } from './vetting-report.route.ts';
import { waiverRoutes } from './waivers.route.ts';

/** Every vetting route: the report, waivers, re-vets and the rerun, and the chain settings. */
export async function vettingPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  vettingReportRoute(app, deps);
  waiverRoutes(app, deps);
  revetRoutes(app, deps);
  rerunVettingRoute(app, deps);
  chainSettingsRoutes(app, deps);
}
