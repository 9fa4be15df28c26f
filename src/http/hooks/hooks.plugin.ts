import { webhookRoutes } from './webhook.route.ts';
import type { AreaOptions, HttpApp } from '../http-deps.ts';

/** Inbound forge webhooks. */
export async function hooksPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  webhookRoutes(app, deps);
}
