import { Type } from 'typebox';
import {
  managedSettings,
  maxChosenMarketplaces,
  parseChosen,
} from '../../../application/access/managed-settings.use-case.ts';
import { callerOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { problemResponses } from '../../schemas/common.schema.ts';

const GitSource = Type.Object({
  source: Type.Literal('git'),
  url: Type.String({ description: '<base-url>/git/<name>.git: the marketplace through the facade' }),
});

const ManagedSettingsView = Type.Object(
  {
    extraKnownMarketplaces: Type.Record(Type.String(), Type.Object({ source: GitSource }), {
      description: 'Each chosen marketplace (or the catalog), registered under its gateway name',
    }),
    strictKnownMarketplaces: Type.Array(
      Type.Object({ source: Type.Literal('hostPattern'), hostPattern: Type.String() }),
      { description: "One entry: the gateway's hostname, anchored and escaped; clients may add nothing else" },
    ),
  },
  { description: 'A Claude Code managed-settings.json' },
);

// docs/clients.md: a managed-settings.json that registers the gateway's marketplaces and admits nothing else.
export function managedSettingsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/clients/managed-settings',
    {
      schema: {
        tags: ['clients'],
        summary: 'Claude Code managed settings for the organisation (any signed-in caller)',
        description:
          'A managed-settings.json for /etc/claude-code/ (or the platform equivalent): extraKnownMarketplaces registers the ' +
          'catalog (when enabled; else every live marketplace) or the chosen marketplaces through the facade, and ' +
          "strictKnownMarketplaces admits the gateway's host alone. Contains no secret: clients authenticate to /git with their " +
          'own personal token. Sent as a download (Content-Disposition: attachment). 404 names unknown marketplaces.',
        querystring: Type.Object({
          marketplaces: Type.Optional(
            Type.String({
              maxLength: 64 * maxChosenMarketplaces,
              description: `Comma-separated names: the catalog and/or live marketplaces (at most ${maxChosenMarketplaces})`,
            }),
          ),
        }),
        response: { 200: ManagedSettingsView, ...problemResponses(404, 422) },
      },
    },
    async (request, reply) => {
      callerOf(request);
      const settings = await managedSettings(
        { pool: deps.pool, baseUrl: deps.baseUrl, catalogName: deps.catalog.enabled ? deps.catalog.name : null },
        parseChosen(request.query.marketplaces),
      );
      void reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', 'attachment; filename="managed-settings.json"')
        .header('cache-control', 'no-store');
      return settings;
    },
  );
}
