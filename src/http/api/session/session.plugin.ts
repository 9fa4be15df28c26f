import { loginRoutes } from '../../auth/login.route.ts';
import { meRoute } from './me.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** The session: sign-in and sign-out through the identity provider, and who the caller is. */
export async function sessionPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  loginRoutes(app, deps);
  meRoute(app, deps);
}
