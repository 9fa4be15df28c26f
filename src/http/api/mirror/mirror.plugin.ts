import { mirrorRoutes } from './mirror.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** The mirror. */
export async function mirrorPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  mirrorRoutes(app, deps);
}
