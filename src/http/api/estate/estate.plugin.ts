import { estateRoutes } from './estate.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** The declared estate. */
export async function estatePlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  estateRoutes(app, deps);
}
