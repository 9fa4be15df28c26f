import { adoptionRoutes } from './adoption.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Who adopted what is served. */
export async function adoptionPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  adoptionRoutes(app, deps);
}
