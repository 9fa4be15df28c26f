import { Type } from 'typebox';
import { isMarketplaceName } from '../../domain/kernel/names.ts';
import { checkHoldings } from '../../application/access/holdings.use-case.ts';
import { authenticateFacade, mayFetch, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/kernel/rejected.ts';

/** Holdings per request (docs/facade.md, Revocation check). */
export const maxHoldings = 256;
const fullSha = /^[0-9a-f]{40}$/;

const Result = Type.Object({
  marketplace: Type.String(),
  sha: Type.String(),
  state: Type.Union([Type.Literal('approved'), Type.Literal('revoked'), Type.Literal('unknown')]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
  approvedOverReversedRevocation: Type.Boolean(),
});

type Pair = { marketplace: string; sha: string; asSent: string };

/** Every violation refuses the whole request with 400 (docs/facade.md, Revocation check). */
function pairsOf(body: unknown): Pair[] {
  const holdings = (body as { holdings?: unknown } | null)?.holdings;
  if (!Array.isArray(holdings))
    throw reject('invalid-holdings', 'the body is {"holdings": [{"marketplace", "sha"}, …]}');
  if (holdings.length > maxHoldings)
    throw reject('invalid-holdings', `at most ${maxHoldings} holdings per request (got ${holdings.length})`);
  return holdings.map((pair: unknown, index) => {
    const { marketplace: raw, sha } = (pair ?? {}) as Record<string, unknown>;
    // The facade's name rule, an optional .git suffix stripped first.
    const marketplace = typeof raw === 'string' ? raw.replace(/\.git$/, '') : raw;
    if (typeof marketplace !== 'string' || !isMarketplaceName(marketplace))
      throw reject('invalid-holdings', `holdings[${index}].marketplace is not a valid marketplace name`);
    if (typeof sha !== 'string' || !fullSha.test(sha))
      throw reject('invalid-holdings', `holdings[${index}].sha must be a full 40-character commit id`);
    return { marketplace, sha, asSent: raw as string };
  });
}

export function holdingsRoute(app: HttpApp, deps: HttpDeps, credentials: FacadeCredentialDeps): void {
  // The credentials (the facade's too) are looked up in the same memory as the answers; it stops with the server.
  const memory = deps.facadeMemory;
  if (memory) app.addHook('onClose', () => memory.close());
  app.post(
    '/status/v1/snapshots',
    {
      schema: {
        tags: ['revocation check'],
        summary: 'Which of the commits a client holds are still approved',
        body: Type.Unknown(),
        response: { 200: Type.Object({ results: Type.Array(Result) }) },
      },
    },
    async (request, reply) => {
      // The revocation check accepts the same credentials as the facade.
      const caller = await authenticateFacade(credentials, request.headers.authorization);
      if (!caller) {
        void reply.header('www-authenticate', 'Basic realm="Skill Marketplace Gateway", charset="UTF-8"');
        throw reject('unauthenticated', 'present a personal access token as the HTTP Basic password');
      }
      const pairs = pairsOf(request.body);
      const answers = await checkHoldings(deps, pairs, (marketplace) => mayFetch(caller, marketplace));
      const tally = new Map<string, number>();
      const results = pairs.map((pair, index) => {
        const answer = answers[index]!;
        tally.set(answer.state, (tally.get(answer.state) ?? 0) + 1);
        return { marketplace: pair.asSent, sha: pair.sha, ...answer };
      });
      // One increment per state answered, not per pair: a full request is 256 pairs.
      for (const [state, count] of tally) deps.metrics.holdings.inc({ state }, count);
      return { results };
    },
  );
}
