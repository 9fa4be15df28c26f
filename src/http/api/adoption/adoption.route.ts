import { Type } from 'typebox';
import { adoptionReport, adoptionStaleness } from '../../../application/audit/adoption.use-case.ts';
import { servedCatalogSha } from '../../../application/catalog/catalog-reads.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { problemResponses } from '../../schemas/common.schema.ts';

const tags = ['adoption'];
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Count = Type.Integer({ minimum: 0 });

// The adoption report entries (docs/audit-time-travel.md, Adoption).
const SnapshotEntry = Type.Object({
  sha: Type.String(),
  fetches: Count,
  identities: Count,
  lastFetch: Type.String(),
  current: Type.Boolean({ description: 'this commit is the served tip' }),
});

const MarketplaceEntry = Type.Object({
  marketplace: Type.String(),
  servedSha: Type.Union([Type.String(), Type.Null()], { description: 'null when no longer serving' }),
  fetches: Count,
  identities: Count,
  lastFetch: Type.String(),
  snapshots: Type.Array(SnapshotEntry),
});

const StaleEntry = Type.Object({
  principal: Type.String(),
  marketplace: Type.String(),
  sha: Type.String({ description: 'what the latest content-transferring fetch took' }),
  lastFetch: Type.String(),
  servedSha: NullableString,
});

export function adoptionRoutes(app: HttpApp, deps: HttpDeps): void {
  const ports = { ...deps, catalogSha: () => servedCatalogSha(deps) };

  app.get(
    '/api/v1/adoption',
    {
      schema: {
        tags,
        summary:
          'Who fetched what through the facade in the last `days` days (default 30, clamped to 1..365), ' +
          'per marketplace by name (the catalog under its own); upload-pack entries only (auditor or admin)',
        querystring: Type.Object({ days: Type.Optional(Type.Integer()) }),
        response: { 200: Type.Array(MarketplaceEntry), ...problemResponses(403, 422) },
      },
    },
    async (request) => adoptionReport(ports, callerOf(request), request.query.days),
  );

  app.get(
    '/api/v1/adoption/staleness',
    {
      schema: {
        tags,
        summary:
          'Identities whose latest content-transferring fetch of a marketplace was not its served tip ' +
          '(window-free; auditor or admin)',
        response: { 200: Type.Array(StaleEntry), ...problemResponses(403) },
      },
    },
    async (request) => adoptionStaleness(ports, callerOf(request)),
  );
}
