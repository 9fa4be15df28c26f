import { faviconRoutes } from './favicon.route.ts';
import { portalRoutes } from './portal.route.ts';
import type { AreaOptions, HttpApp } from '../http-deps.ts';

/** The portal: its favicon and the single-page application. */
export async function portalPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  faviconRoutes(app);
  await portalRoutes(app, deps);
}
