import { Type } from 'typebox';
import { ledgerAfter, ledgerPageWithTotal, type LedgerEntry } from '../../../projections/ledger/ledger.queries.ts';
import { exportEntry } from '../../../application/audit-sink-push.ts';
import { requireAuditorOrAdmin } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { problemResponses } from '../../schemas/common.schema.ts';
import { auditCheckpointRoutes } from './checkpoints.route.ts';

const tags = ['audit'];
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

const Entry = Type.Object({
  id: Type.Integer(),
  ts: Type.String(),
  source: Type.String(),
  principal: Type.String(),
  actorType: Type.Union([Type.Literal('human'), Type.Literal('machine'), Type.Literal('system')]),
  marketplace: Type.String(),
  marketplaceId: NullableInteger,
  event: Type.String(),
  ref: NullableString,
  sha: NullableString,
  detail: NullableString,
  tokenId: NullableInteger,
  credential_kind: NullableString,
  hash: Type.String({ description: 'SHA-256 (hex) of prevHash and the canonical JSON of the entry (docs/audit.md).' }),
  prevHash: Type.String({ description: 'The previous entry hash; 64 zeros for entry 1.' }),
});

const Page = Type.Object({
  entries: Type.Array(Entry),
  nextBefore: Type.Optional(Type.Integer()),
  total: Type.Integer(),
  totalIsEstimate: Type.Boolean(),
});

const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

const exportLine = (e: LedgerEntry) => JSON.stringify(exportEntry(e));

// spec, Audit: reads of the ledger itself are not recorded.
export function auditRoutes(app: HttpApp, deps: HttpDeps): void {
  const { defaultPageSize, maxPageSize, lagMs } = deps.auditExport;
  const clamp = (limit: number | undefined) => Math.min(Math.max(limit ?? defaultPageSize, 1), maxPageSize);
  auditCheckpointRoutes(app, deps);

  app.get(
    '/api/v1/audit',
    {
      schema: {
        tags,
        summary: 'The audit ledger, newest first, paged by ledger sequence',
        querystring: Type.Object({
          before: Type.Optional(Count),
          limit: Type.Optional(Count),
          marketplace: Type.Optional(Type.String({ maxLength: 63 })),
        }),
        response: { 200: Page, ...problemResponses(403) },
      },
    },
    async (request) => {
      await requireAuditorOrAdmin(deps, request);
      const limit = clamp(request.query.limit);
      const marketplace = request.query.marketplace ?? null;
      const { rows, ...total } = await ledgerPageWithTotal(
        deps.pool,
        request.query.before ?? 0,
        limit + 1,
        marketplace,
      );
      const entries = rows.slice(0, limit);
      const last = entries.at(-1);
      return {
        entries: entries as Array<LedgerEntry & { actorType: 'human' | 'machine' | 'system' }>,
        ...(rows.length > limit && last ? { nextBefore: last.id } : {}),
        ...total,
      };
    },
  );

  app.get(
    '/api/v1/audit/export',
    {
      schema: {
        tags,
        summary:
          'The ledger as NDJSON in ledger order from a cursor; entries younger than the settling lag are withheld',
        querystring: Type.Object({ after: Type.Optional(Count), limit: Type.Optional(Count) }),
        produces: ['application/x-ndjson'],
      },
    },
    async (request, reply) => {
      await requireAuditorOrAdmin(deps, request);
      const after = request.query.after ?? 0;
      const cutoff = new Date(deps.clock.now().getTime() - lagMs).toISOString();
      const entries = await ledgerAfter(deps.pool, after, clamp(request.query.limit), cutoff);
      void reply.header('x-gateway-audit-cursor', String(entries.at(-1)?.id ?? after));
      return reply.type('application/x-ndjson').send(entries.map((e) => `${exportLine(e)}\n`).join(''));
    },
  );
}
