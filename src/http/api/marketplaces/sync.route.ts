import { Type } from 'typebox';
import { marketplaceListing } from '../../../application/marketplaces/marketplace-reads.use-case.ts';
import { changeSyncMode } from '../../../application/marketplaces/registration.use-case.ts';
import { syncModes } from '../../../domain/marketplace/marketplace.events.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin } from '../../auth/acting.ts';
import { literalUnion, problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { MarketplaceView, marketplaceView } from '../../schemas/marketplace.schema.ts';

export function syncRoutes(app: HttpApp, deps: HttpDeps): void {
  app.put(
    '/api/v1/marketplaces/:name/sync',
    {
      schema: {
        tags: ['marketplaces'],
        summary: 'Set how the marketplace is ingested: on-demand, scheduled (gateway.sync.schedule) or webhook (admin)',
        description:
          'Entering webhook mode issues a new secret, returned once as `webhookSecret` (sign POST /hooks/{marketplace} bodies with it: ' +
          '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`); leaving webhook mode discards it. Setting the mode a marketplace ' +
          'already has changes nothing and issues no secret.',
        params: NameParams,
        body: Type.Object({ mode: literalUnion(syncModes) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ ...MarketplaceView.properties, webhookSecret: Type.Optional(Type.String()) }),
          ...problemResponses(403, 404, 422),
        },
      },
    },
    async (request) => {
      const { marketplace, webhookSecret } = await actAsAdmin(deps, request, (_admin, meta) =>
        changeSyncMode(deps, request.params.name, request.body.mode, meta),
      );
      const listing = await marketplaceListing(deps, marketplace);
      const view = marketplaceView(marketplace, listing.servedSha, listing.snapshots);
      return webhookSecret === null ? view : { ...view, webhookSecret };
    },
  );
}
