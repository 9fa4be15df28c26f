import { managedSettingsRoute } from './managed-settings.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Clients' managed settings. */
export async function clientsPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  managedSettingsRoute(app, deps);
}
