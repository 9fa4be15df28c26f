import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  advertisePush,
  capturePush,
  defaultReceiveLimits,
  pushTargetNamed,
  type PushTarget,
  type ReceiveLimits,
} from '../../application/facade/receive-push.use-case.ts';
import { mayPush, type FacadeCaller, type FacadeCredentialDeps } from '../auth/facade-credentials.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { receive, requestType } from './receive.ts';
import { advertise, facadeMeta, notFound, offerService, RepoParams, wireCaller, wireErrorHandler } from './wire.ts';

// Hosted publishing (a publisher pushes to /publish/{name}, docs/marketplaces.md): the receive side of git smart
// HTTP over the system `git receive-pack`, into the marketplace's quarantine repository (receive-push.use-case.ts).
// A push never changes what is served: it is recorded (marketplace-pushed) and ingested as a held snapshot.

type Pusher = Readonly<{ target: PushTarget; caller: FacadeCaller }>;

/**
 * Authenticated like the facade; then named by the token's push scopes, live and hosted: anything
 * else answers as a nonexistent repository (docs/access.md, Tokens).
 */
async function pusher(
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  request: FastifyRequest,
  rawName: string,
  reply: FastifyReply,
): Promise<Pusher | null> {
  const authenticated = await wireCaller(credentials, request, rawName, reply);
  if (!authenticated) return null;
  const { name, caller } = authenticated;
  const target = mayPush(caller, name) ? await pushTargetNamed(deps, name) : null;
  if (!target) notFound(reply);
  return target ? { target, caller } : null;
}

export function publishRoutes(
  app: HttpApp,
  deps: HttpDeps,
  credentials: FacadeCredentialDeps,
  limits: ReceiveLimits = defaultReceiveLimits,
): void {
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
        const found = await pusher(deps, credentials, request, rawName, reply);
        if (!found) return reply;
        return advertise(reply, 'git-receive-pack', await advertisePush(found.target, limits));
      });

      git.post('/:repo/git-receive-pack', { schema: { hide: true, params: RepoParams } }, async (request, reply) => {
        const found = await pusher(deps, credentials, request, request.params.repo, reply);
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
