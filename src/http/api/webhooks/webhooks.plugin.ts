import { webhookDeliveryRoutes } from './deliveries.route.ts';
import { webhookSubscriberRoutes } from './webhooks.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Outbound webhooks: the deliveries, then the subscribers and the event kinds. */
export async function webhooksPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  webhookDeliveryRoutes(app, deps);
  webhookSubscriberRoutes(app, deps);
}
