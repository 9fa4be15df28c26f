import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isMarketplaceName } from '../../domain/kernel/names.ts';
import { webhookTarget } from '../../application/marketplaces/marketplace-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/kernel/rejected.ts';
import { problemResponses } from '../schemas/common.schema.ts';

const signaturePattern = /^sha256=([0-9a-f]{64})$/i;

/** The signature a forge sends (GitHub, Gitea: `X-Hub-Signature-256: sha256=<hex>`), checked in constant time. */
export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  const sent = signaturePattern.exec(header?.trim() ?? '')?.[1];
  if (!sent) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(sent, 'hex'));
}

/**
 * The inbound webhook (docs/marketplaces.md, Sync modes): authenticated only by the HMAC of the exact raw body; the payload is ignored.
 * One 404 for an unknown marketplace, one not in webhook mode and a bad or missing signature; 413 for
 * a body over gateway.sync.max-webhook-body-bytes, before any look-up (fastify's body limit).
 */
export function webhookRoutes(app: HttpApp, deps: HttpDeps): void {
  // Queued ingestions finish before the gateway closes.
  app.addHook('onClose', () => deps.ingests.idle());
  void app.register(async (plugin) => {
    const hooks = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Every content type arrives as the raw bytes the signature covers.
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: deps.sync.maxWebhookBodyBytes },
      (_request, body, done) => done(null, body),
    );
    hooks.post(
      '/hooks/:marketplace',
      {
        bodyLimit: deps.sync.maxWebhookBodyBytes,
        schema: {
          tags: ['marketplaces'],
          summary: 'Inbound forge webhook: queue an ingestion (signed with the marketplace webhook secret)',
          description:
            'Send the raw body with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body under the webhook secret>` (GitHub and Gitea do). ' +
            'The payload is ignored. 404 alike for an unknown marketplace, one not in webhook mode and a bad or missing signature; 413 over ' +
            'gateway.sync.max-webhook-body-bytes. The ingestion runs with principal `webhook`.',
          security: [],
          params: Type.Object({ marketplace: Type.String({ maxLength: 200 }) }),
          response: {
            202: Type.Object({ queued: Type.Boolean(), marketplace: Type.String() }),
            ...problemResponses(404, 413),
          },
        },
      },
      async (request, reply) => {
        const name = request.params.marketplace;
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const notFound = () =>
          reject('marketplace-not-found', `no marketplace '${name}' accepts webhooks with this signature`);
        const { marketplace, sealed } = isMarketplaceName(name)
          ? await webhookTarget(deps, name)
          : { marketplace: null, sealed: null };
        // The HMAC is computed even without a secret, so a miss costs the same as a bad signature.
        const secret = sealed === null ? 'no secret' : deps.secrets.open(sealed);
        const header = request.headers['x-hub-signature-256'];
        const valid = signatureMatches(secret, body, Array.isArray(header) ? header[0] : header);
        if (!marketplace || sealed === null || !valid) throw notFound();
        void deps.ingests.enqueue(marketplace, 'webhook', 'webhook');
        return reply.code(202).send({ queued: true, marketplace: marketplace.name });
      },
    );
  });
}
