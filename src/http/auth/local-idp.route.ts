// The built-in issuer on the gateway's own server (docs/local-idp.md): /local-idp and everything under it go
// to oidc-provider untouched (its mount path known from originalUrl), except its login page, which
// is the gateway's own. Reachable without a session: this is the sign-in.
import type { IncomingMessage } from 'node:http';
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import {
  checkLocalPassword,
  localIssuerPath as localIdpPath,
  type LocalIdp,
} from '../../application/access/sign-in.use-case.ts';
import {
  errorPage,
  loginPage,
  pageSecurityPolicy,
  stylesheet,
  stylesheetPath,
  type LoginForm,
} from '../../adapters/identity/local-idp/pages.ts';
import type { HttpApp, HttpDeps } from '../http-deps.ts';
import { SignInAttempts } from './local-idp-attempts.ts';

/** A sign-in form is small; anything larger is refused before it is read whole. */
const formBodyLimitBytes = 4096;

const htmlHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': pageSecurityPolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const sendPage = (reply: FastifyReply, status: number, html: string) =>
  reply.code(status).headers(htmlHeaders).send(html);

const expired = 'This sign-in is unknown or has expired.';

/** Registers the issuer's paths; call before the server listens. */
export async function localIdpRoutes(app: HttpApp, deps: HttpDeps, idp: LocalIdp): Promise<void> {
  const attempts = new SignInAttempts(() => deps.clock.now().getTime());
  await app.register(async (scope) => loginPageRoutes(scope, idp, attempts));
  await app.register(async (scope) => mountRoutes(scope, idp));
}

function loginPageRoutes(app: HttpApp, idp: LocalIdp, attempts: SignInAttempts): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formBodyLimitBytes },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  const hide = { hide: true } as Record<string, unknown>;
  app.get(stylesheetPath, { schema: hide }, async (_request, reply) =>
    reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=3600' }).send(stylesheet),
  );
  const params = Type.Object({ uid: Type.String({ maxLength: 100 }) });
  app.get(`${localIdpPath}/interaction/:uid`, { schema: { ...hide, params } }, async (request, reply) => {
    const interaction = await idp.interaction(request.raw, reply.raw);
    if (interaction?.uid !== request.params.uid) return sendPage(reply, 400, errorPage(expired));
    return sendPage(reply, 200, loginPage({ uid: interaction.uid }));
  });
  app.post(
    `${localIdpPath}/interaction/:uid/login`,
    { bodyLimit: formBodyLimitBytes, schema: { ...hide, params } },
    async (request, reply) => {
      const interaction = await idp.interaction(request.raw, reply.raw);
      if (interaction?.uid !== request.params.uid) return sendPage(reply, 400, errorPage(expired));
      const body = (request.body ?? {}) as Record<string, unknown>;
      const username = typeof body.username === 'string' ? body.username.trim() : '';
      const password = typeof body.password === 'string' ? body.password : '';
      const form: LoginForm = { uid: interaction.uid, username };
      const address = SignInAttempts.addressKey(request.ip);
      const refusal = attempts.refusal(address);
      if (refusal) {
        void reply.header('retry-after', String(refusal.retryAfterSeconds));
        return sendPage(reply, 429, loginPage({ ...form, error: refusal.message }));
      }
      if (!(await attempts.check(address, username, () => checkLocalPassword(idp, username, password)))) {
        request.log.warn('built-in sign-in refused: wrong user name or password'); // what was typed is never logged
        return sendPage(reply, 401, loginPage({ ...form, error: 'The user name or password is not right.' }));
      }
      request.log.info('built-in sign-in: password accepted');
      reply.hijack();
      await idp.finishLogin(request.raw, reply.raw);
      return reply;
    },
  );
}

/** Everything else under /local-idp: the raw request, its body unread, to oidc-provider. */
function mountRoutes(app: HttpApp, idp: LocalIdp): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const forward = async (request: { raw: IncomingMessage }, reply: FastifyReply) => {
    const handler = idp.callback();
    if (!handler) return sendPage(reply, 503, errorPage('The built-in sign-in is starting. Try again in a moment.'));
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    const full = raw.url ?? localIdpPath;
    const rest = full.slice(localIdpPath.length);
    raw.originalUrl = full;
    raw.url = rest.startsWith('/') ? rest : `/${rest}`;
    reply.hijack();
    handler(raw, reply.raw);
    return reply;
  };
  const schema = { hide: true } as Record<string, unknown>;
  app.all(localIdpPath, { schema }, forward);
  app.all(`${localIdpPath}/*`, { schema }, forward);
}
