import { catalogRoutes } from './catalog.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** The virtual catalog. */
export async function catalogPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  catalogRoutes(app, deps);
}
