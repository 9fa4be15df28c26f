import staticFiles from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { portalDirectory } from '../../application/kernel/build-artifacts.use-case.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/kernel/rejected.ts';
import { sessionCookie } from '../auth/cookies.ts';

/** The portal's client-side sections: a deep link into any of them is answered with the application. */
export const portalSections = ['marketplaces', 'review', 'access', 'policy', 'audit'] as const;

type PortalDeps = Pick<HttpDeps, 'sessions' | 'clock' | 'identity' | 'access' | 'baseUrl'>;

/**
 * The portal is a single-page application served at `/` from the same origin as the API.
 * Every portal path needs a session whenever one can be had (the portal is on the session
 * surface, docs/access.md): the page itself sends a browser without one to sign in, and its scripts answer 401.
 * Under the development hatch there is no cookie to look for, so the shell is served as is.
 */
export async function portalRoutes(app: HttpApp, deps: PortalDeps): Promise<void> {
  const root = portalDirectory();
  const built = existsSync(join(root, 'index.html'));
  const index = built ? readFileSync(join(root, 'index.html')) : null;
  const signedIn = async (request: FastifyRequest): Promise<boolean> => {
    if (deps.access.devInsecureAuth || deps.identity === null) return true;
    const id = request.cookies[sessionCookie];
    return id !== undefined && (await deps.sessions.get(id, deps.clock.instant())) !== null;
  };
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!index)
      throw reject('portal-not-built', 'the portal is not built: run npm run build, then restart the gateway');
    if (!(await signedIn(request))) {
      const returnTo = encodeURIComponent(request.url);
      return reply.redirect(`/oauth2/authorization/idp?returnTo=${returnTo}`, 302);
    }
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(index);
  };
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, page);
  for (const section of portalSections) {
    app.get(`/${section}`, hidden, page);
    app.get(`/${section}/*`, hidden, page);
  }
  if (!built) return;
  // Hashed file names: a build never changes a file under a name it has served.
  await app.register(async (assets) => {
    assets.addHook('onRequest', async (request, reply) => {
      if (!(await signedIn(request))) throw reject('unauthenticated', 'not signed in: start at /');
      void reply;
    });
    await assets.register(staticFiles, {
      root: join(root, 'assets'),
      prefix: '/assets/',
      index: false,
      wildcard: true,
      immutable: true,
      maxAge: '365d',
      serveDotFiles: false,
    });
  });
}
