// authenticateFacade (src/http/auth/facade-credentials.ts) called directly: personal access tokens over
// HTTP Basic, issued through the real token commands of a gateway (development hatch), and
// identity-provider JWTs checked against a real oidc-provider (test/support/oidc.ts).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKeyPair, UnsecuredJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { OidcProvider, type OidcSettings } from '../../../src/adapters/identity/oidc.ts';
import { systemClock, type Clock } from '../../../src/adapters/system/clock.ts';
import {
  authenticateFacade,
  mayFetch,
  type FacadeCaller,
  type FacadeCredentialDeps,
} from '../../../src/http/auth/facade-credentials.ts';
import { TokenUseRecorder } from '../../../src/application/access/token-use.ts';
import { streams } from '../../../src/domain/kernel/streams.ts';
import { silentLogger } from '../../support/core.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { freePort, gitResource, startOidcProvider } from '../../support/oidc.ts';

type TokenView = {
  id: number;
  name: string;
  token?: string;
  scopes: string[];
  revokedAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
};

const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });

// The development hatch: X-Dev-User names the caller; CSRF is a double submit of any value.
const asUser = (user: string) => {
  const headers = { 'x-dev-user': user, cookie: 'XSRF-TOKEN=csrf-test', 'x-xsrf-token': 'csrf-test' };
  return {
    async create(body: Record<string, unknown>, path = '/api/v1/tokens'): Promise<TokenView & { token: string }> {
      const response = await gw.fetch(path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { ...headers, 'content-type': 'application/json' },
      });
      if (response.status !== 201) throw new Error(`creating a token: ${response.status} ${await response.text()}`);
      return (await response.json()) as TokenView & { token: string };
    },
    async revoke(id: number): Promise<void> {
      const response = await gw.fetch(`/api/v1/tokens/${id}`, { method: 'DELETE', headers });
      if (response.status !== 204) throw new Error(`revoking token ${id}: ${response.status} ${await response.text()}`);
    },
    async token(id: number): Promise<TokenView> {
      const response = await gw.fetch('/api/v1/tokens', { headers });
      const found = ((await response.json()) as TokenView[]).find((token) => token.id === id);
      if (!found) throw new Error(`token ${id} is not in GET /api/v1/tokens`);
      return found;
    },
  };
};
const alice = asUser('alice');

const offsetClock = (offsetMs: number): Clock => ({
  now: () => new Date(Date.now() + offsetMs),
  instant: () => new Date(Date.now() + offsetMs).toISOString(),
});

const recorder = (clock: Clock = systemClock) => new TokenUseRecorder(gw.core.store, clock, silentLogger);
const sharedRecorder = recorder();

const deps = (overrides: Partial<FacadeCredentialDeps> = {}): FacadeCredentialDeps => ({
  pool: gw.core.pool,
  clock: systemClock,
  tokenUse: sharedRecorder,
  idpBearer: null,
  ...overrides,
});

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
const facade = (authorization: string | undefined, overrides: Partial<FacadeCredentialDeps> = {}) =>
  authenticateFacade(deps(overrides), authorization);

/** Polls GET /api/v1/tokens (the projection) until `until` holds, for at most `ms`. */
async function lastUsedAt(
  id: number,
  until: (value: string | null) => boolean = () => true,
  ms = 3000,
): Promise<string | null> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = (await alice.token(id)).lastUsedAt;
    if (until(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

t.test(
  'spec, Git facade credentials: HTTP Basic, "only the password field is read and the username is ignored"',
  async (t) => {
    const created = await alice.create({ name: 'laptop' });
    const expected: FacadeCaller = {
      principal: 'alice',
      credentialKind: 'pat',
      tokenId: created.id,
      scopes: null,
      pushScopes: [],
    };
    for (const username of [
      '',
      'alice',
      'someone-else',
      'x-access-token',
      'gw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      t.same(await facade(basic(username, created.token)), expected, `username ${JSON.stringify(username)}`);
    }
    t.same(
      await facade(`basic ${Buffer.from(`:${created.token}`).toString('base64')}`),
      expected,
      'the scheme name is case-insensitive',
    );
    const caller = (await facade(basic('', created.token)))!;
    t.ok(mayFetch(caller, 'catalog'), 'an unscoped token fetches the catalog');
    t.ok(mayFetch(caller, 'any-marketplace'), 'and every marketplace served');
    t.equal(await facade(undefined), null, 'no Authorization header: no caller');
  },
);

t.test(
  'spec, Tokens rules 1 and 3: a scoped token carries its list; other marketplaces are not fetchable',
  async (t) => {
    const created = await alice.create({ name: 'ci-fetch', scopes: ['catalog'] });
    const caller = await facade(basic('', created.token));
    t.same(caller, {
      principal: 'alice',
      credentialKind: 'pat',
      tokenId: created.id,
      scopes: ['catalog'],
      pushScopes: [],
    });
    t.equal(mayFetch(caller!, 'catalog'), true);
    t.equal(mayFetch(caller!, 'other'), false, 'out of scope');
  },
);

t.test('spec, Git facade credentials: "Expired, revoked and unknown tokens fail alike"', async (t) => {
  const refused: Array<[string, FacadeCaller | null]> = [];

  const unknown = `gw_${randomBytes(32).toString('base64url')}`;
  refused.push(['unknown secret', await facade(basic('', unknown))]);

  const revoked = await alice.create({ name: 'to-revoke' });
  t.ok(await facade(basic('', revoked.token)), 'control: the token works before its revocation');
  await alice.revoke(revoked.id);
  refused.push(['revoked', await facade(basic('', revoked.token))]);

  const expiring = await alice.create({
    name: 'half-hour',
    expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
  });
  t.ok(await facade(basic('', expiring.token)), 'control: valid now');
  refused.push([
    'expired (an hour later)',
    await facade(basic('', expiring.token), { clock: offsetClock(60 * 60_000) }),
  ]);

  const short = await alice.create({ name: 'short', expiresAt: new Date(Date.now() + 1500).toISOString() });
  t.ok(await facade(basic('', short.token)), 'control: valid for 1.5 s');
  await sleep(2000);
  refused.push(['expired (by the wall clock)', await facade(basic('', short.token))]);

  for (const [what, result] of refused) t.equal(result, null, what);
});

t.test('malformed Basic credentials are no credential', async (t) => {
  const created = await alice.create({ name: 'malformed-base' });
  const cases: Array<[string, string]> = [
    ['a short gw_ secret', basic('', 'gw_short')],
    ['no gw_ prefix', basic('', created.token.slice(3))],
    ['one character more', basic('', `${created.token}x`)],
    ['one character less', basic('', created.token.slice(0, -1))],
    ['the secret as the username', basic(created.token, '')],
    ['no colon', `Basic ${Buffer.from(created.token).toString('base64')}`],
    ['the secret in clear instead of base64', `Basic :${created.token}`],
    ['an empty Basic credential', 'Basic '],
    ['a personal access token as a bearer token', `Bearer ${created.token}`],
    ['an unknown scheme', `Token ${created.token}`],
  ];
  for (const [what, header] of cases) t.equal(await facade(header), null, what);
  t.ok(await facade(basic('', created.token)), 'control: the well-formed credential works');
});

t.test('spec, Machine API 4: a machine credential "reaches the API only, never the facade"', async (t) => {
  const machine = await asUser('root').create(
    {
      principal: 'ci-bot',
      name: 'ci',
      apiScopes: ['roles:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    },
    '/api/v1/tokens/machine',
  );
  const api = await gw.fetch('/api/v1/roles', { headers: { authorization: `Bearer ${machine.token}` } });
  t.not(api.status, 401, 'control: the credential authenticates on the machine API');
  t.equal(await facade(basic('', machine.token)), null, 'over Basic on the facade: nothing');
  t.equal(await facade(basic('ci-bot', machine.token)), null, 'whatever the username');
});

t.test('spec, lastUsedAt rules 1 and 2: null until a successful authentication, then its time', async (t) => {
  const created = await alice.create({ name: 'fresh' });
  t.equal((await alice.token(created.id)).lastUsedAt, null, 'rule 2: null before any use');
  const before = Date.now();
  t.ok(await facade(basic('', created.token)));
  const after = Date.now();
  const value = await lastUsedAt(created.id, (v) => v !== null);
  t.ok(value, 'rule 1: set after a successful facade authentication');
  const at = Date.parse(value ?? '');
  t.ok(at >= before - 1000 && at <= after + 1000, `the time of the use (${value})`);
});

t.test('spec, lastUsedAt rule 3: "written at most once per token per minute"', async (t) => {
  const created = await alice.create({ name: 'busy' });
  t.ok(await facade(basic('', created.token)));
  const first = await lastUsedAt(created.id, (v) => v !== null);
  t.ok(first, 'the first use is written');

  await sleep(50);
  t.ok(await facade(basic('', created.token)), 'a second success through the same recorder');
  t.ok(await facade(basic('', created.token), { tokenUse: recorder() }), "and through another replica's recorder");
  // Let a later write reach the projection before looking: a control token's first use.
  const control = await alice.create({ name: 'busy-control' });
  t.ok(await facade(basic('', control.token)));
  t.ok(await lastUsedAt(control.id, (v) => v !== null), 'control written');
  t.equal(await lastUsedAt(created.id, (v) => v !== first, 500), first, 'unchanged within the minute');

  // The check can fail: a use two minutes later is written.
  const later = offsetClock(2 * 60_000);
  t.ok(await facade(basic('', created.token), { clock: later, tokenUse: recorder(later) }));
  const moved = await lastUsedAt(created.id, (v) => v !== first);
  t.not(moved, first, 'a use more than a minute later moves it');
  t.ok(Date.parse(moved ?? '') - Date.parse(first ?? '') >= 60_000, 'to the later use');
});

t.test('spec, lastUsedAt rule 4: "A refused authentication leaves it unchanged"', async (t) => {
  const wrong = await alice.create({ name: 'wrong-secret' });
  const last = wrong.token.at(-1) === 'A' ? 'B' : 'A';
  t.equal(await facade(basic('', `${wrong.token.slice(0, -1)}${last}`)), null, 'a wrong secret is refused');

  const revoked = await alice.create({ name: 'revoked-unused' });
  await alice.revoke(revoked.id);
  t.equal(await facade(basic('', revoked.token)), null, 'a revoked token is refused');

  const expired = await alice.create({
    name: 'expired-unused',
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  const hourLater = offsetClock(60 * 60_000);
  t.equal(
    await facade(basic('', expired.token), { clock: hourLater, tokenUse: recorder(hourLater) }),
    null,
    'an expired token is refused',
  );

  // Control: a success after the refusals reaches the projection, so anything written before it would show.
  const control = await alice.create({ name: 'refusal-control' });
  t.ok(await facade(basic('', control.token)));
  t.ok(await lastUsedAt(control.id, (v) => v !== null), 'control written');
  for (const token of [wrong, revoked, expired]) {
    t.equal(await lastUsedAt(token.id, (v) => v !== null, 300), null, `${token.name}: lastUsedAt still null`);
  }
});

// ---------------------------------------------------------------------------------------------
// Identity-provider bearer tokens

t.test('spec, Git facade credentials: identity-provider bearer tokens', async (t) => {
  const idp = await startOidcProvider(t);
  const settings = (overrides: Partial<OidcSettings> = {}): OidcSettings => ({
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    scopes: ['openid', 'profile', 'email'],
    audience: null,
    userNameAttribute: 'sub',
    ...overrides,
  });
  const provider = new OidcProvider(settings());
  const bearer = (jwt: string, idpBearer: OidcProvider | null = provider) => facade(`Bearer ${jwt}`, { idpBearer });
  const now = () => Math.floor(Date.now() / 1000);
  const signed = (overrides: JWTPayload = {}) => idp.sign(idp.claimsFor('alice', overrides));
  const withoutClaim = (claim: string) => {
    const claims = idp.claimsFor('alice');
    delete claims[claim];
    return idp.sign(claims);
  };
  const idpCaller: FacadeCaller = {
    principal: 'alice',
    credentialKind: 'idp',
    tokenId: null,
    scopes: null,
    pushScopes: [],
  };

  t.test('a valid RS256 JWT from the provider names its sub and permits every marketplace', async (t) => {
    const caller = await bearer(await signed());
    t.same(caller, idpCaller);
    t.ok(caller && mayFetch(caller, 'any-marketplace'), '"Such a token permits every marketplace served"');
    t.same(
      await facade(`bearer ${await signed()}`, { idpBearer: provider }),
      idpCaller,
      'the scheme name is case-insensitive',
    );
  });

  t.test('"Accepted: OIDC access token or ID token": tokens the provider itself issued', async (t) => {
    const { idToken } = await idp.obtainTokens('alice');
    t.same(await bearer(idToken), idpCaller, 'an ID token (aud = client id)');
    const { accessToken } = await idp.obtainTokens('audrey', { resource: gitResource });
    t.equal(await bearer(accessToken), null, 'a JWT access token for another audience is refused by default');
    const forGit = new OidcProvider(settings({ audience: gitResource }));
    t.same(
      await bearer(accessToken, forGit),
      { ...idpCaller, principal: 'audrey' },
      'and accepted when gateway.oidc.audience names its audience',
    );
  });

  t.test('"The principal is the claim named by the provider\'s user-name attribute"', async (t) => {
    const byName = new OidcProvider(settings({ userNameAttribute: 'preferred_username' }));
    t.same(await bearer(await signed({ preferred_username: 'alice.liddell' }), byName), {
      ...idpCaller,
      principal: 'alice.liddell',
    });
    t.equal(await bearer(await signed(), byName), null, 'a token without the attribute names nobody');
    t.equal(await bearer(await signed({ preferred_username: '' }), byName), null, 'nor an empty one');
  });

  t.test('"issuer equals the configured OIDC issuer"', async (t) => {
    t.equal(await bearer(await signed({ iss: 'https://other-idp.example' })), null, 'another issuer');
    t.equal(await bearer(await signed({ iss: `${idp.issuer}/` })), null, 'the issuer with a trailing slash');
    t.equal(await bearer(await withoutClaim('iss')), null, 'no issuer');
  });

  t.test(
    '"audience contains the configured audience (default the OAuth2 client id; a token with no aud is refused)"',
    async (t) => {
      t.equal(await bearer(await signed({ aud: 'another-client' })), null, 'another audience');
      t.equal(await bearer(await withoutClaim('aud')), null, 'no aud');
      t.same(
        await bearer(await signed({ aud: ['another-client', idp.clientId] })),
        idpCaller,
        'a list containing the client id',
      );
      const configured = new OidcProvider(settings({ audience: 'urn:gateway:facade' }));
      t.equal(
        await bearer(await signed(), configured),
        null,
        'gateway.oidc.audience set: the client id is no longer enough',
      );
      t.same(
        await bearer(await signed({ aud: 'urn:gateway:facade' }), configured),
        idpCaller,
        'the configured audience is',
      );
    },
  );

  t.test('spec, Limits: "Idp bearer leeway 60 seconds" on exp and nbf', async (t) => {
    t.same(await bearer(await signed({ exp: now() - 30 })), idpCaller, 'expired 30 s ago: within the leeway');
    t.equal(await bearer(await signed({ exp: now() - 120 })), null, 'expired 120 s ago: refused');
    t.same(await bearer(await signed({ nbf: now() + 30 })), idpCaller, 'valid in 30 s: within the leeway');
    t.equal(await bearer(await signed({ nbf: now() + 120 })), null, 'valid in 120 s: refused');
  });

  t.test('"signature from the provider\'s key set"', async (t) => {
    const { privateKey: otherKey } = await generateKeyPair('RS256', { extractable: true });
    const claims = idp.claimsFor('alice');
    t.equal(await bearer(await idp.sign(claims, { key: otherKey })), null, "another key under the provider's kid");
    t.equal(
      await bearer(await idp.sign(claims, { key: otherKey, kid: 'stranger' })),
      null,
      'another key under its own kid',
    );
    t.equal(
      await bearer(await idp.sign(claims, { alg: 'HS256', key: new TextEncoder().encode(idp.clientSecret) })),
      null,
      'HS256 with the client secret',
    );
    t.equal(await bearer(new UnsecuredJWT(claims).encode()), null, 'unsigned (alg none)');
    const genuine = await idp.sign(claims);
    t.same(await bearer(genuine), idpCaller, 'control: the genuine token');
    const [header, , signature] = genuine.split('.');
    const tampered = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url');
    t.equal(await bearer(`${header}.${tampered}.${signature}`), null, 'its payload changed after signing');
    t.equal(await bearer('not-a-jwt'), null, 'not a JWT at all');
  });

  t.test('gateway.facade.idp-bearer.enabled false (idpBearer null): a valid JWT is no credential', async (t) => {
    const jwt = await signed();
    t.same(await bearer(jwt), idpCaller, 'control: accepted when enabled');
    t.equal(await bearer(jwt, null), null);
  });

  t.test('a provider that cannot be reached refuses, it does not fail the request', async (t) => {
    const unreachable = new OidcProvider(settings({ issuer: `http://127.0.0.1:${await freePort()}` }));
    t.equal(await bearer(await signed(), unreachable), null);
  });

  t.test('Basic personal access tokens still work beside the bearer option', async (t) => {
    const created = await alice.create({ name: 'beside-idp' });
    t.match(await facade(basic('', created.token), { idpBearer: provider }), {
      credentialKind: 'pat',
      tokenId: created.id,
    });
  });
});

t.test('the recorder’s idle() resolves once the uses it started are appended', async (t) => {
  const created = await alice.create({ name: 'idle-probe' });
  const own = recorder();
  const uses = async () =>
    (await gw.core.store.readStream(streams.token(created.id))).events.filter((e) => e.type === 'token-used').length;
  t.equal(await uses(), 0, 'not used yet');
  t.ok(await facade(basic('', created.token), { tokenUse: own }), 'authenticated');
  await own.idle();
  t.equal(await uses(), 1, 'the use is in the token’s stream as soon as idle() resolves, with no polling');
  await own.idle();
  t.pass('idle() with nothing in flight resolves at once');
});
