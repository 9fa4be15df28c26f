import { auditRoutes } from './audit.route.ts';
import { auditSinkRoutes } from './sinks.route.ts';
import { timeTravelRoutes } from './time-travel.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** The audit surfaces: the ledger and its export, checkpoints, audit sinks and time travel. */
export async function auditPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  auditRoutes(app, deps);
  auditSinkRoutes(app, deps);
  timeTravelRoutes(app, deps);
}
