import { machineTokenRoutes } from './machine-tokens.route.ts';
import { personalTokenRoutes } from './personal-tokens.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Personal access tokens and machine credentials. */
export async function tokensPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  personalTokenRoutes(app, deps);
  machineTokenRoutes(app, deps);
}
