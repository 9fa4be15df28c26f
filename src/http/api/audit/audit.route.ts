import { Type } from 'typebox';
import { ledgerExportPage, type LedgerEntry } from '../../../application/audit/audit-reads.use-case.ts';
import { readLedger } from '../../../application/audit/ledger.use-case.ts';
import { exportEntry } from '../../../application/outbound/audit-sink-push.duty.ts';
import { callerOf, requireAuditorOrAdmin } from '../../auth/authorize.ts';
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
type ActorType = 'human' | 'machine' | 'system';

const LedgerQuery = Type.Object({
  before: Type.Optional(Count),
  limit: Type.Optional(Count),
  marketplace: Type.Optional(Type.String({ maxLength: 63 })),
  principal: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The principal, exactly' })),
  event: Type.Optional(
    Type.String({ pattern: '^[a-z][a-z0-9-]{0,63}$', description: 'A ledger event name, e.g. upload-pack' }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or before this instant' })),
});

const exportLine = (e: LedgerEntry) => JSON.stringify(exportEntry(e));

// Reads of the ledger itself are not recorded (docs/audit.md).
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
        description:
          'marketplace is the name as recorded (entries of earlier marketplaces of that name included). principal, ' +
          'event, from and to narrow further (decision 420): from and to are inclusive instants with a time zone on ' +
          "the entry's ts; a range ending before it starts answers 422. total counts the whole ledger, whatever the filter.",
        querystring: LedgerQuery,
        response: { 200: Page, ...problemResponses(403, 422) },
      },
    },
    async (request) => {
      const { before = 0, limit, ...filter } = request.query;
      const screen = await readLedger(deps, callerOf(request), { before, limit: clamp(limit), ...filter });
      return { ...screen, entries: screen.entries as Array<LedgerEntry & { actorType: ActorType }> };
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
      const entries = await ledgerExportPage(deps, after, clamp(request.query.limit), cutoff);
      void reply.header('x-gateway-audit-cursor', String(entries.at(-1)?.id ?? after));
      return reply.type('application/x-ndjson').send(entries.map((e) => `${exportLine(e)}\n`).join(''));
    },
  );
}
