import { policyRoutes } from './policy.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Policy rules and their dry run. */
export async function policyPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  policyRoutes(app, deps);
}
