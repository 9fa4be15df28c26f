import { Type } from 'typebox';
import { listMachineTokens } from '../../../application/access/token-reads.use-case.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAsAdmin, readAsAdmin } from '../../auth/acting.ts';
import { answerIssued, issuedView } from './tokens.shared.ts';
import { deleteRoute } from '../delete-route.ts';
import { IdParams, problemResponses } from '../../schemas/common.schema.ts';
import { CreateMachineTokenBody, TokenView, tokenView } from '../../schemas/token.schema.ts';
import { issueToken, revokeToken, rotateToken } from '../../../application/access/tokens.use-case.ts';

const tags = ['machine credentials'];
const anyMachine = { asOwner: null, kinds: ['machine'] as const };

// Only these endpoints mint machine credentials (docs/access.md), and provisioning needs admin.
// Nothing under /api/v1/tokens/** is reachable by a machine credential (not in the allowlist).
export function machineTokenRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/tokens/machine',
    {
      schema: {
        tags,
        summary: 'Provision a machine credential',
        body: CreateMachineTokenBody,
        response: { 201: TokenView, ...problemResponses(403, 422) },
      },
    },
    async (request, reply) => {
      const { principal, name, apiScopes, expiresAt = null } = request.body;
      const issued = await actAsAdmin(deps, request, (admin, meta) =>
        // Owned by the admin who provisions it; what it does is attributed to its own principal.
        issueToken(deps, meta, {
          kind: 'machine',
          owner: admin.principal,
          principal: principal.trim(),
          name,
          scopes: [],
          pushScopes: [],
          apiScopes,
          expiresAt,
        }),
      );
      return answerIssued(reply, issued);
    },
  );

  app.get(
    '/api/v1/tokens/machine',
    {
      schema: {
        tags,
        summary: 'Every machine credential, whoever provisioned it (never a secret)',
        response: { 200: Type.Array(TokenView), ...problemResponses(403) },
      },
    },
    async (request) =>
      (await readAsAdmin(deps, request, () => listMachineTokens(deps))).map((token) => tokenView(token)),
  );

  app.post(
    '/api/v1/tokens/machine/:id/rotate',
    {
      schema: {
        tags,
        summary: 'New secret; principal, name, expiry and API scopes carry over',
        params: IdParams,
        response: { 200: TokenView, ...problemResponses(403, 404, 409) },
      },
    },
    async (request) =>
      issuedView(
        await actAsAdmin(deps, request, (_caller, meta) => rotateToken(deps, meta, request.params.id, anyMachine)),
      ),
  );

  deleteRoute(
    app,
    deps,
    {
      path: '/api/v1/tokens/machine',
      tags,
      summary: 'Revoke a machine credential (effective on the next request)',
      adminOnly: true,
    },
    (_caller, id, meta) => revokeToken(deps, meta, id, anyMachine),
  );
}
