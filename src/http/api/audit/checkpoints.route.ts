import { Type } from 'typebox';
import { checkpointPage } from '../../../application/audit/audit-reads.use-case.ts';
import { requireAuditorOrAdmin } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { instanceOf, plainProblem, sendProblem } from '../../problems.ts';
import { problemResponses } from '../../schemas/common.schema.ts';
import { LedgerCheckpoint } from '../webhooks/outbound.schema.ts';

const tags = ['audit'];
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

const PublicKey = Type.Object(
  {
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String(),
    kid: Type.String(),
    alg: Type.Literal('EdDSA'),
    use: Type.Literal('sig'),
  },
  { description: 'The public JWK that verifies checkpoint signatures (docs/audit.md).' },
);

/** docs/audit.md: the signed heads of the ledger and the key that verifies them; auditor or admin. */
export function auditCheckpointRoutes(app: HttpApp, deps: HttpDeps): void {
  const { defaultPageSize, maxPageSize } = deps.auditExport;

  app.get(
    '/api/v1/audit/checkpoints',
    {
      schema: {
        tags,
        summary: 'Signed heads of the ledger, newest first, paged by entry id',
        querystring: Type.Object({ before: Type.Optional(Count), limit: Type.Optional(Count) }),
        response: {
          200: Type.Object({ checkpoints: Type.Array(LedgerCheckpoint), nextBefore: Type.Optional(Type.Integer()) }),
          ...problemResponses(403),
        },
      },
    },
    async (request) => {
      await requireAuditorOrAdmin(deps, request);
      const limit = Math.min(Math.max(request.query.limit ?? defaultPageSize, 1), maxPageSize);
      return checkpointPage(deps, request.query.before ?? 0, limit);
    },
  );

  app.get(
    '/api/v1/audit/public-key',
    {
      schema: {
        tags,
        summary: 'The Ed25519 public key (JWK) that verifies ledger checkpoints',
        response: { 200: PublicKey, ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await requireAuditorOrAdmin(deps, request);
      const key = deps.auditSigning;
      if (!key) return sendProblem(reply, plainProblem(404, 'this gateway signs no checkpoints', instanceOf(request)));
      return key.publicJwk as { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
    },
  );
}
