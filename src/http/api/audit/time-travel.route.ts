import { Type } from 'typebox';
import { holdersOfSnapshot, servedAtInstant } from '../../../application/audit/time-travel.use-case.ts';
import { holderRoutes } from '../../../application/audit/audit-reads.use-case.ts';
import { requireAuditorOrAdmin } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { IdParams, literalUnion, problemResponses, Timestamp } from '../../schemas/common.schema.ts';

const tags = ['audit'];
const NullableString = Type.Union([Type.String(), Type.Null()]);

const AtQuery = Type.Object({
  at: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'The instant asked about (ISO-8601 with a time zone); default now.',
    }),
  ),
});

const Served = Type.Object({
  at: Timestamp,
  marketplaces: Type.Array(
    Type.Object({
      marketplace: Type.String(),
      marketplaceId: Type.Integer(),
      sha: Type.Union([Type.String(), Type.Null()], { description: 'The commit at refs/heads/main; null: nothing.' }),
      snapshotId: Type.Union([Type.Integer(), Type.Null()]),
      since: Type.Union([Timestamp, Type.Null()], { description: 'When what it served last changed.' }),
    }),
  ),
  catalog: Type.Union([Type.Object({ name: Type.String(), sha: NullableString, since: Timestamp }), Type.Null()]),
});

const Holders = Type.Object({
  at: Timestamp,
  snapshotId: Type.Integer(),
  marketplace: Type.String(),
  marketplaceId: Type.Integer(),
  sha: Type.String(),
  holders: Type.Array(
    Type.Object({
      principal: Type.String(),
      firstFetch: Timestamp,
      lastFetch: Timestamp,
      fetches: Type.Integer({ minimum: 1 }),
      credentialKinds: Type.Array(Type.String()),
      via: Type.Array(literalUnion(holderRoutes)),
    }),
  ),
});

const servedDescription =
  'Answered from the recorded events (docs/audit-time-travel.md): a marketplace is listed from its ' +
  'registration until its removal; what it serves changes on snapshot-approved (that commit), on the ' +
  'revocation of the served snapshot and on removal (null). The catalog is its last catalog-rebuilt ' +
  '(null sha: withdrawn), null before the first. Each instant is the one the event was recorded at.';

const holdersDescription =
  "A holder is an identity whose upload-pack wants included the snapshot's commit from its own " +
  'marketplace (via marketplace), or a catalog revision built from that commit (via catalog), recorded by ' +
  '`at`. A ref advertisement (info-refs) transfers nothing and makes no holder; nor does a fetch of a later ' +
  'commit that merely has this one in its history. fetches counts the upload-pack events.';

// Time travel (docs/audit-time-travel.md); auditor or admin, like the ledger. No machine scope: the table is closed.
export function timeTravelRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/audit/served',
    {
      schema: {
        tags,
        summary: 'What each marketplace and the catalog served at an instant (auditor or admin)',
        description: servedDescription,
        querystring: AtQuery,
        response: { 200: Served, ...problemResponses(403, 422) },
      },
    },
    async (request) => {
      await requireAuditorOrAdmin(deps, request);
      return servedAtInstant(deps, request.query.at, deps.clock.now());
    },
  );

  app.get(
    '/api/v1/snapshots/:id/holders',
    {
      schema: {
        tags,
        summary: "Every identity that had fetched a snapshot's commit by an instant (auditor or admin)",
        description: holdersDescription,
        params: IdParams,
        querystring: AtQuery,
        response: { 200: Holders, ...problemResponses(403, 404, 422) },
      },
    },
    async (request) => {
      await requireAuditorOrAdmin(deps, request);
      return holdersOfSnapshot(deps, request.params.id, request.query.at, deps.clock.now());
    },
  );
}
