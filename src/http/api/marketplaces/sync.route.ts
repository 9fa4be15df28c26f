import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { marketplaceDecider } from '../../../domain/marketplace/marketplace.decider.ts';
import { syncModes } from '../../../domain/marketplace/marketplace.events.ts';
import { streams } from '../../../domain/shared/streams.ts';
import { liveMarketplaceByName } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotsOf } from '../../../projections/snapshots/snapshots.queries.ts';
import { metaFor, requireAdmin } from '../../auth/authorize.ts';
import { execute } from '../../../application/execute.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import { MarketplaceView, marketplaceView } from '../../schemas/marketplace.schema.ts';
import { liveOr404 } from './marketplaces.route.ts';

const NameParams = Type.Object({ name: Type.String({ maxLength: 200 }) });

/** A webhook secret as forges take it: 32 random bytes, hex. */
const newWebhookSecret = (): string => randomBytes(32).toString('hex');

export function syncRoutes(app: HttpApp, deps: HttpDeps): void {
  app.put('/api/v1/marketplaces/:name/sync', {
    schema: {
      tags: ['marketplaces'], summary: 'Set how the marketplace is ingested: on-demand, scheduled (gateway.sync.schedule) or webhook (admin)',
      description: 'Entering webhook mode issues a new secret, returned once as `webhookSecret` (sign POST /hooks/{marketplace} bodies with it: '
        + '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`); leaving webhook mode discards it. Setting the mode a marketplace '
        + 'already has changes nothing and issues no secret.',
      params: NameParams,
      body: Type.Object({ mode: literalUnion(syncModes) }, { additionalProperties: false }),
      response: { 200: Type.Object({ ...MarketplaceView.properties, webhookSecret: Type.Optional(Type.String()) }), ...problemResponses(403, 404, 422) },
    },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    const marketplace = await liveOr404(deps, request.params.name);
    const secret = newWebhookSecret();
    const decision = await execute(deps, marketplaceDecider, streams.marketplace(marketplace.id), {
      type: 'change-sync-mode', data: { mode: request.body.mode, sealedWebhookSecret: deps.secrets.seal(secret) }, meta: metaFor(deps, request, caller),
    }, ['marketplaces', 'ledger']);
    const entered = decision.events.some((e) => e.type === 'sync-mode-changed' && e.data.mode === 'webhook');
    const updated = (await liveMarketplaceByName(deps.pool, marketplace.name))!;
    const view = marketplaceView(updated, await deps.gitStore.servedSha(updated.id), await snapshotsOf(deps.pool, [updated.id]));
    return entered ? { ...view, webhookSecret: secret } : view;
  });
}
