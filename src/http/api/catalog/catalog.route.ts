import { Type } from 'typebox';
import {
  enabledCatalog,
  servedCatalogRevision,
  type CatalogRevision,
} from '../../../application/catalog/catalog-reads.use-case.ts';
import { rebuildCatalog } from '../../../application/catalog/rebuild.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin } from '../../auth/acting.ts';
import { problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['catalog'];

const CatalogRevisionView = Type.Object({
  sha: Type.String({ description: 'The catalog commit served at /git/<gateway.catalog.name>' }),
  generatedAt: Timestamp,
  constituents: Type.Array(Type.Object({ marketplace: Type.String(), sha: Type.String() }), {
    description: 'Every served marketplace, in name order, and the commit taken',
  }),
  collisions: Type.Array(
    Type.Object({
      name: Type.String(),
      marketplaces: Type.Array(Type.String(), {
        description: 'One entry per claim, in name order (a name claimed twice by one marketplace appears twice)',
      }),
    }),
    {
      description:
        'Plugin names claimed more than once across the served estate, in name order; each is published for no claimant',
    },
  ),
});

const revisionView = (revision: CatalogRevision) => ({
  sha: revision.sha,
  generatedAt: revision.generatedAt,
  constituents: revision.constituents.map((c) => ({ marketplace: c.marketplace, sha: c.sha })),
  collisions: revision.collisions.map((c) => ({ name: c.name, marketplaces: [...c.marketplaces] })),
});

export function catalogRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/catalog',
    {
      schema: {
        tags,
        summary: 'The virtual catalog revision served now',
        description:
          'Read from the catalog commit itself. 404 when the catalog is disabled or not generated yet (no marketplace is served).',
        response: { 200: CatalogRevisionView, ...problemResponses(404) },
      },
    },
    async (request) => {
      callerOf(request);
      return revisionView(await servedCatalogRevision(deps));
    },
  );

  app.post(
    '/api/v1/catalog/rebuild',
    {
      schema: {
        tags,
        summary: 'Rebuild the virtual catalog now (admin)',
        description:
          'Sent with no body. The leader builds a new revision from what every marketplace serves and serves it, recorded as ' +
          'catalog-rebuilt for the caller (and catalog-name-collision, principal catalog-builder, for each name newly withheld); the ' +
          'answer is that revision. 404 when the catalog is disabled, or when no marketplace is served (there is then nothing to catalog).',
        response: { 200: CatalogRevisionView, ...problemResponses(403, 404, 500, 503) },
      },
    },
    async (request) => {
      const builder = enabledCatalog(deps);
      return revisionView(await actAsAdmin(deps, request, (_caller, meta) => rebuildCatalog(deps, builder, meta)));
    },
  );
}
