import { facadeRoutes } from './facade.route.ts';
import { publishRoutes } from './publish.route.ts';
import type { HttpApp, WireOptions } from '../http-deps.ts';

/** The git surfaces: the fetch facade (/git) and hosted publishing (/publish). */
export async function gitPlugin(app: HttpApp, { deps, credentials }: WireOptions): Promise<void> {
  facadeRoutes(app, deps, credentials);
  publishRoutes(app, deps, credentials);
}
