import { holdingsRoute } from './holdings.route.ts';
import type { HttpApp, WireOptions } from '../http-deps.ts';

/** The revocation check (/status/v1). */
export async function statusPlugin(app: HttpApp, { deps, credentials }: WireOptions): Promise<void> {
  holdingsRoute(app, deps, credentials);
}
