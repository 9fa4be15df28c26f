import { ingestRoutes } from './ingest.route.ts';
import { marketplaceRoutes } from './marketplaces.route.ts';
import { selectionRoutes } from './selection.route.ts';
import { syncRoutes } from './sync.route.ts';
import type { AreaOptions, HttpApp } from '../../http-deps.ts';

/** Marketplaces: registration and removal, ingests, the sync mode and the plugin selection. */
export async function marketplacesPlugin(app: HttpApp, { deps }: AreaOptions): Promise<void> {
  marketplaceRoutes(app, deps);
  ingestRoutes(app, deps);
  syncRoutes(app, deps);
  selectionRoutes(app, deps);
}
