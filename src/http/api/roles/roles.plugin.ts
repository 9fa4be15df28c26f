import { roleRoutes } from './roles.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Role grants. */
export async function rolesPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  roleRoutes(app, deps);
}
