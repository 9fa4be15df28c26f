// The built-in issuer is refused at startup when `gateway.base-url` is not a loopback
// address unless `gateway.local-idp.enabled: true` is set explicitly, and it is off whenever an identity
// provider is configured.
import t from 'tap';
import { LocalIdpRefused } from '../../../src/adapters/identity/local-idp/mode.ts';
import { startOnConfig } from '../../support/gateway.ts';
import { startGatewayWithOidc } from '../../support/oidc.ts';
import { firstRunConfig, startFirstRun } from './first-run.ts';

const discovery = '/local-idp/.well-known/openid-configuration';

t.test('refused on a base URL that is not a loopback address, naming the settings', async (t) => {
  const config = await firstRunConfig(t, { GATEWAY_BASE_URL: 'http://gateway.example.test' });
  const error = await startOnConfig(config).then(
    (gateway) => gateway.close().then(() => null),
    (e: unknown) => e,
  );
  t.type(error, LocalIdpRefused, 'the start fails');
  const message = (error as Error).message;
  t.match(message, /gateway\.base-url http:\/\/gateway\.example\.test/);
  t.match(message, /not a loopback address/);
  t.match(message, /gateway\.local-idp\.enabled: true/);
  t.match(message, /gateway\.oidc\.issuer/);
});

// decision 355: the default base URL is loopback, but 0.0.0.0 listens on every interface.
t.test('refused when the server listens beyond loopback, even with a loopback base URL', async (t) => {
  for (const host of ['0.0.0.0', '::']) {
    const config = await firstRunConfig(t, { GATEWAY_SERVER_HOST: host });
    t.match(config.baseUrl, /^http:\/\/127\.0\.0\.1:/, `${host}: the default base URL is loopback`);
    const error = await startOnConfig(config).then(
      (gateway) => gateway.close().then(() => null),
      (e: unknown) => e,
    );
    t.type(error, LocalIdpRefused, `${host}: the start fails`);
    t.match((error as Error).message, `gateway.server.host ${host} is not a loopback address`);
    t.match((error as Error).message, /gateway\.local-idp\.enabled: true/);
  }
  const allowed = await startFirstRun(
    t,
    await firstRunConfig(t, { GATEWAY_SERVER_HOST: '0.0.0.0', GATEWAY_LOCAL_IDP_ENABLED: 'true' }),
  );
  t.equal((await allowed.gateway.fetch(discovery)).status, 200, 'unless enabled explicitly');
});

t.test('allowed on that base URL with gateway.local-idp.enabled: true', async (t) => {
  const config = await firstRunConfig(t, {
    GATEWAY_BASE_URL: 'http://gateway.example.test',
    GATEWAY_LOCAL_IDP_ENABLED: 'true',
  });
  const run = await startFirstRun(t, config);
  t.ok(run.password, 'the password is shown');
  t.match(run.notices.join(''), /Sign in at http:\/\/gateway\.example\.test\/ as/);
  const answer = await run.gateway.fetch(discovery);
  t.equal(answer.status, 200);
  t.equal(((await answer.json()) as { issuer: string }).issuer, 'http://gateway.example.test/local-idp');
});

t.test('loopback base URLs need no setting: 127.0.0.0/8, ::1 and localhost', async (t) => {
  for (const baseUrl of ['http://127.0.0.2:8080', 'http://[::1]:8080', 'http://localhost:8080']) {
    const run = await startFirstRun(t, await firstRunConfig(t, { GATEWAY_BASE_URL: baseUrl }));
    t.equal((await run.gateway.fetch(discovery)).status, 200, baseUrl);
    await run.gateway.close();
  }
});

t.test('off when an identity provider is configured: /local-idp answers 404', async (t) => {
  const { gateway } = await startGatewayWithOidc(t);
  t.equal((await gateway.fetch(discovery)).status, 404);
  t.equal((await gateway.fetch('/local-idp')).status, 404);
  t.equal(gateway.deps.access.configAdmins.includes('admin'), false, 'and admin is no administrator');
});

t.test('off when an identity provider is configured, even with gateway.local-idp.enabled: true', async (t) => {
  const { gateway, idp } = await startGatewayWithOidc(t, { env: { GATEWAY_LOCAL_IDP_ENABLED: 'true' } });
  t.equal((await gateway.fetch(discovery)).status, 404);
  const start = await gateway.fetch('/oauth2/authorization/idp', { redirect: 'manual' });
  t.equal(start.status, 302);
  t.ok(start.headers.get('location')?.startsWith(idp.issuer), 'the sign-in goes to the identity provider');
});

t.test('off with the development hatch, and with gateway.local-idp.enabled: false', async (t) => {
  for (const env of [{ GATEWAY_DEV_INSECURE_AUTH: 'true' }, { GATEWAY_LOCAL_IDP_ENABLED: 'false' }]) {
    const run = await startFirstRun(t, await firstRunConfig(t, env));
    t.same(run.notices, [], `${JSON.stringify(env)}: nothing printed`);
    t.equal((await run.gateway.fetch(discovery)).status, 404, `${JSON.stringify(env)}: /local-idp answers 404`);
    t.equal(
      (await run.gateway.fetch('/oauth2/authorization/idp', { redirect: 'manual' })).status,
      404,
      `${JSON.stringify(env)}: no sign-in`,
    );
    await run.gateway.close();
  }
});
