import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  advertisePush,
  capturePush,
  defaultReceiveLimits,
  pushTargetNamed,
  type ReceiveLimits,
} from '../../application/facade/receive-push.use-case.ts';
import { mayPush, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { wireTarget } from './facade.route.ts';
import { receive, requestType } from './receive.ts';
import { advertise, facadeMeta, notFound, offerService, RepoParams, wireErrorHandler } from './wire.ts';

// Hosted publishing (a publisher pushes to /publish/{name}, docs/marketplaces.md): the receive side of git smart
// HTTP over the system `git receive-pack`, into the marketplace's quarantine repository (receive-push.use-case.ts).
// A push never changes what is served: it is recorded (marketplace-pushed) and ingested as a held snapshot.

export function publishRoutes(
  app: HttpApp,
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  limits: ReceiveLimits = defaultReceiveLimits,
): void {
  // Authenticated like the facade (wireTarget); then named by the token's push scopes, live and hosted
  // (docs/access.md, Tokens).
  const pushable = (caller: FacadeCaller, name: string) => (mayPush(caller, name) ? pushTargetNamed(deps, name) : null);
  app.register(
    async (plain) => {
      const git = plain.withTypeProvider<TypeBoxTypeProvider>();
      // The body is read as a stream: the command list is judged first, then the pack goes on to git.
      git.addContentTypeParser(requestType, (_request, payload, done) => done(null, payload));
      git.setNotFoundHandler((_request, reply) => notFound(reply));
      git.setErrorHandler(
        wireErrorHandler('publish', requestType, 'the gateway could not complete this push; nothing was published'),
      );
      const uploadPackRefused = "Service not enabled: 'upload-pack' (fetch approved content from /git/<name>)";
      offerService(git, 'git-receive-pack', uploadPackRefused, async (request, rawName, reply) => {
        const found = await wireTarget(credentials, request, rawName, reply, pushable);
        if (!found) return reply;
        return advertise(reply, 'git-receive-pack', await advertisePush(found.target, limits));
      });

      git.post('/:repo/git-receive-pack', { schema: { hide: true, params: RepoParams } }, async (request, reply) => {
        const found = await wireTarget(credentials, request, request.params.repo, reply, pushable);
        if (!found) return reply;
        const { target, caller } = found;
        const meta = () => facadeMeta(request, caller, deps.clock.instant());
        const captured = (newTip: string) => capturePush(deps, target.marketplace, meta(), newTip);
        const { store, waiter, quarantineLocks } = deps;
        return receive({ store, waiter, quarantineLocks, limits }, request, reply, target, { meta, captured });
      });
    },
    { prefix: '/publish' },
  );
}
