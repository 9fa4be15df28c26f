// A real identity provider for the tests (a real OIDC provider, oidc-provider, started by the tests: no
// mock of the identity provider), a cookie-jar "browser" that drives the real authorization-code flow through
// the gateway's login paths, and a gateway started against that provider.
//
// oidc-provider 9 runs over http on 127.0.0.1; devInteractions renders a
// login form (prompt=login, login, password: any) and a consent form (prompt=consent); PKCE is S256 only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import type { Configuration, KoaContextWithOIDC, default as ProviderClass } from 'oidc-provider';
import * as client from 'openid-client';
import type { Test } from 'tap';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/adapters/config/load.ts';
import { startGateway } from '../../src/gateway.ts';
import { silentLogger } from './core.ts';
import { testDatabase } from './database.ts';
import { settledOf, type TestGateway } from './gateway.ts';

// ---------------------------------------------------------------------------------------------
// Accounts

/** The claims an account releases (sub is the account id). */
export type TestAccount = Readonly<{
  email?: string;
  preferred_username?: string;
  name?: string;
  groups?: readonly string[];
  [claim: string]: unknown;
}>;

/** 300 groups: more than the 256 entries a session keeps (src/domain/access/claims.ts). */
export const manyGroups: readonly string[] = Array.from(
  { length: 300 },
  (_, i) => `group-${String(i).padStart(3, '0')}`,
);

/** The accounts every provider knows unless a test replaces them. */
export const defaultAccounts: Readonly<Record<string, TestAccount>> = {
  alice: { email: 'alice@example.test', preferred_username: 'alice.liddell', name: 'Alice', groups: ['developers'] },
  audrey: { email: 'audrey@example.test', preferred_username: 'audrey.auditor', groups: ['developers', 'auditors'] },
  root: { email: 'root@example.test', preferred_username: 'root.admin', groups: ['platform-admins'] },
  many: { email: 'many@example.test', preferred_username: 'many.groups', groups: manyGroups },
  nogroups: { email: 'nogroups@example.test', preferred_username: 'no.groups' },
};

// ---------------------------------------------------------------------------------------------
// The provider

/** The resource server a JWT access token can be requested for (resourceIndicators, accessTokenFormat jwt). */
export const gitResource = 'urn:gateway:git';

export type TestIdp = Readonly<{
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Where obtainTokens() stops the browser: registered on the client, never fetched. */
  rpRedirectUri: string;
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
  /** The per-test account table: change it at will, findAccount reads it on every sign-in. */
  accounts: Map<string, TestAccount>;
  /** Errors the provider reported (server_error and friends), for a failing test's diagnosis. */
  errors: unknown[];
  /** The GATEWAY_OIDC_* variables naming this provider and its client. */
  gatewayEnv(): Record<string, string>;
  /** Standard claims of a token from this provider: iss, aud = client id, sub, iat, exp five minutes ahead. */
  claimsFor(sub: string, overrides?: JWTPayload): JWTPayload;
  /** Signs the payload verbatim with the provider's key (RS256, its kid) unless told otherwise. */
  sign(payload: JWTPayload, options?: SignOptions): Promise<string>;
  /** Tokens the provider itself issues, through the browser flow as a relying party (openid-client). */
  obtainTokens(
    account: string,
    options?: { resource?: string; scope?: string },
  ): Promise<{ idToken: string; accessToken: string }>;
  close(): Promise<void>;
}>;

/** key: another private key (or, with an HS* alg, a shared secret) instead of the provider's. */
export type SignOptions = Readonly<{ key?: CryptoKey | Uint8Array; kid?: string; alg?: string; typ?: string }>;

export type OidcProviderOptions = Readonly<{
  /** Redirect URIs of the confidential client (besides rpRedirectUri). */
  redirectUris?: readonly string[];
  /** Accounts added to (or replacing) defaultAccounts. */
  accounts?: Readonly<Record<string, TestAccount>>;
  clientId?: string;
  clientSecret?: string;
  /** oidc-provider's conformIdTokenClaims: true (default) releases scope claims from userinfo only. */
  conformIdTokenClaims?: boolean;
}>;

// oidc-provider prints "Unsupported runtime" on Node 20 at import, and warns about devInteractions and
// its in-memory adapter: dev-only noise, dropped by prefix (nothing else of the console is touched).
let quieted = false;
function quietOidcProviderNoise(): void {
  if (quieted) return;
  quieted = true;
  for (const method of ['warn', 'info'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && /^oidc-provider (WARNING|NOTICE)/.test(args[0])) return;
      original(...args);
    };
  }
}

let providerModule: Promise<typeof import('oidc-provider')> | null = null;
const loadProvider = () => {
  quietOidcProviderNoise();
  providerModule ??= import('oidc-provider');
  return providerModule;
};

async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A real oidc-provider on 127.0.0.1 and a free port, closed at the end of the test. */
export async function startOidcProvider(t: Test, options: OidcProviderOptions = {}): Promise<TestIdp> {
  const { default: Provider, errors: oidcErrors } = await loadProvider();
  const clientId = options.clientId ?? 'gateway';
  const clientSecret = options.clientSecret ?? 'gateway-test-secret';
  const accounts = new Map<string, TestAccount>(Object.entries({ ...defaultAccounts, ...options.accounts }));
  const errors: unknown[] = [];

  const kid = 'test-key-1';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

  // Listen first: the issuer carries the port.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer((req, res) => handler(req, res));
  const port = await listenOnLoopback(server);
  const issuer = `http://127.0.0.1:${port}`;
  const rpRedirectUri = `http://127.0.0.1:9/test-rp/callback`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...(options.redirectUris ?? []), rpRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [privateJwk] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    pkce: { required: () => true },
    // `groups` is released with the profile scope (the gateway asks for openid profile email by
    // default) and with a scope of its own.
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username', 'groups'],
      groups: ['groups'],
    },
    conformIdTokenClaims: options.conformIdTokenClaims ?? true,
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({ ...account, sub: id, ...(account.email ? { email_verified: true } : {}) }),
      };
    },
    features: {
      devInteractions: { enabled: true },
      // A JWT access token only when the resource is asked for; a sign-in without one gets the opaque
      // userinfo token (a resource-bound token is refused at userinfo).
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          if (resource !== gitResource) throw new oidcErrors.InvalidTarget();
          return {
            scope: 'git:read',
            audience: gitResource,
            accessTokenTTL: 600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  };
  const provider: ProviderClass = new Provider(issuer, configuration);
  provider.on('server_error', (_ctx, error) => {
    errors.push(error);
  });
  provider.on('authorization.error', (_ctx, error) => {
    errors.push(error);
  });
  provider.on('grant.error', (_ctx, error) => {
    errors.push(error);
  });
  provider.on('userinfo.error', (_ctx, error) => {
    errors.push(error);
  });
  handler = provider.callback();

  let closed: Promise<void> | null = null;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  t.teardown(close);

  const claimsFor = (sub: string, overrides: JWTPayload = {}): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: issuer, aud: clientId, sub, iat: now, exp: now + 300, ...overrides };
  };

  const sign = async (payload: JWTPayload, signOptions: SignOptions = {}): Promise<string> =>
    new SignJWT(payload)
      .setProtectedHeader({
        alg: signOptions.alg ?? 'RS256',
        kid: signOptions.kid ?? kid,
        ...(signOptions.typ ? { typ: signOptions.typ } : {}),
      })
      .sign(signOptions.key ?? privateKey);

  let rpConfig: Promise<client.Configuration> | null = null;
  const obtainTokens = async (account: string, tokenOptions: { resource?: string; scope?: string } = {}) => {
    rpConfig ??= client.discovery(new URL(issuer), clientId, clientSecret, client.ClientSecretBasic(clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    const config = await rpConfig;
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rpRedirectUri,
      scope: tokenOptions.scope ?? (tokenOptions.resource ? 'openid profile git:read' : 'openid profile'),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(tokenOptions.resource ? { resource: tokenOptions.resource } : {}),
    });
    const callback = await authorize(new CookieJar(), url.href, account, rpRedirectUri);
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    if (!tokens.id_token) throw new Error('the provider issued no ID token');
    return { idToken: tokens.id_token, accessToken: tokens.access_token };
  };

  return {
    issuer,
    clientId,
    clientSecret,
    rpRedirectUri,
    kid,
    privateJwk,
    privateKey,
    accounts,
    errors,
    gatewayEnv: () => ({
      GATEWAY_OIDC_ISSUER: issuer,
      GATEWAY_OIDC_CLIENT_ID: clientId,
      GATEWAY_OIDC_CLIENT_SECRET: clientSecret,
    }),
    claimsFor,
    sign,
    obtainTokens,
    close,
  };
}

// ---------------------------------------------------------------------------------------------
// The browser

export type StoredCookie = Readonly<{ name: string; value: string; path: string; httpOnly: boolean; raw: string }>;

const pathMatches = (cookiePath: string, requestPath: string) =>
  requestPath === cookiePath ||
  (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));

/**
 * Cookies per origin (host and port: the provider's and the gateway's stay apart), with Path matching
 * and deletion by Max-Age / Expires. fetch() never follows redirects, so every hop can be inspected.
 */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, StoredCookie>>();

  private readonly send: typeof fetch;
  /** `send`: how a hop goes out; fetch, or fetchFrom (test/support/local-address.ts) for another client address. */
  constructor(send: typeof fetch = fetch) {
    this.send = send;
  }

  /** Remembers the Set-Cookie headers of a response to a request for `url`. */
  absorb(url: string | URL, response: Response): void {
    const target = new URL(url);
    const cookies = this.byOrigin.get(target.origin) ?? new Map<string, StoredCookie>();
    this.byOrigin.set(target.origin, cookies);
    for (const raw of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = raw.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = target.pathname.slice(0, Math.max(1, target.pathname.lastIndexOf('/')));
      let httpOnly = false;
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const attrValue = rest.join('=').trim();
        switch (key.trim().toLowerCase()) {
          case 'path':
            if (attrValue.startsWith('/')) path = attrValue;
            break;
          case 'httponly':
            httpOnly = true;
            break;
          case 'max-age':
            if (Number(attrValue) <= 0) expired = true;
            break;
          case 'expires':
            if (Date.parse(attrValue) <= Date.now()) expired = true;
            break;
        }
      }
      const key = `${path}\u0000${name}`;
      if (expired) cookies.delete(key);
      else cookies.set(key, { name, value, path, httpOnly, raw });
    }
  }

  /** The cookies a browser would send to `url`. */
  cookiesFor(url: string | URL): StoredCookie[] {
    const target = new URL(url);
    return [...(this.byOrigin.get(target.origin)?.values() ?? [])]
      .filter((cookie) => pathMatches(cookie.path, target.pathname))
      .sort((a, b) => b.path.length - a.path.length);
  }

  cookieHeader(url: string | URL): string | undefined {
    const cookies = this.cookiesFor(url);
    return cookies.length === 0 ? undefined : cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  get(url: string | URL, name: string): StoredCookie | undefined {
    return this.cookiesFor(url).find((cookie) => cookie.name === name);
  }

  set(url: string | URL, name: string, value: string, path = '/'): void {
    const target = new URL(url);
    const cookies = this.byOrigin.get(target.origin) ?? new Map<string, StoredCookie>();
    this.byOrigin.set(target.origin, cookies);
    cookies.set(`${path}\u0000${name}`, { name, value, path, httpOnly: false, raw: `${name}=${value}; Path=${path}` });
  }

  delete(url: string | URL, name: string): void {
    const cookies = this.byOrigin.get(new URL(url).origin);
    for (const [key, cookie] of cookies ?? []) if (cookie.name === name) cookies?.delete(key);
  }

  /** One hop: the jar's cookies are sent (unless the caller set a Cookie header), Set-Cookie is kept. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie !== undefined && !headers.has('cookie')) headers.set('cookie', cookie);
    const response = await this.send(url, { ...init, headers, redirect: 'manual' });
    this.absorb(url, response);
    return response;
  }
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/gi, '/')
    .replace(/&#x3D;/gi, '=')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

/**
 * Follows redirects from `startUrl` through the provider's interaction pages (devInteractions: the
 * login form with any password, then the consent form) until a Location starts with `stopAt`, which
 * it returns without fetching it.
 */
export async function authorize(jar: CookieJar, startUrl: string, account: string, stopAt: string): Promise<string> {
  let url = startUrl;
  let init: RequestInit = {};
  const steps: string[] = [];
  for (let step = 0; step < 30; step += 1) {
    const response = await jar.fetch(url, init);
    steps.push(`${init.method ?? 'GET'} ${url} ${response.status}`);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (!location) throw new Error(`redirect without Location at ${url}`);
      const target = new URL(location, url).href;
      if (target.startsWith(stopAt)) return target;
      url = target;
      init = {};
      continue;
    }
    const text = await response.text();
    const form = response.status === 200 ? /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(text) : null;
    const prompt = form ? /name="prompt" value="([^"]+)"/.exec(form[2] ?? '')?.[1] : undefined;
    if (!form || !prompt) {
      throw new Error(`the sign-in stopped: ${steps.join(' → ')}\n${text.slice(0, 800)}`);
    }
    const fields: Record<string, string> =
      prompt === 'login' ? { prompt, login: account, password: 'any-password' } : { prompt };
    url = new URL(unescapeHtml(form[1] ?? ''), url).href;
    init = {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error(`the sign-in did not reach ${stopAt}: ${steps.join(' → ')}`);
}

export const loginStartPath = '/oauth2/authorization/idp';
export const callbackPath = '/login/oauth2/code/idp';
export const sessionCookieName = 'GATEWAY_SESSION';
export const xsrfCookieName = 'XSRF-TOKEN';

type GatewayRequestInit = RequestInit & { json?: unknown; xsrf?: boolean | string };

/** A browser pointed at one gateway: its cookies, and requests that echo XSRF-TOKEN when they change state. */
export class GatewayBrowser extends CookieJar {
  /** The callback of the last login(): its URL and the gateway's answer to it. */
  callback: { url: string; response: Response } | null = null;

  readonly gatewayUrl: string;
  constructor(gatewayUrl: string, send?: typeof fetch) {
    super(send);
    this.gatewayUrl = gatewayUrl;
  }

  get sessionId(): string | undefined {
    return this.get(this.gatewayUrl, sessionCookieName)?.value;
  }

  get xsrf(): string | undefined {
    return this.get(this.gatewayUrl, xsrfCookieName)?.value;
  }

  /**
   * A request to the gateway with the jar's cookies. A state-changing method echoes XSRF-TOKEN in
   * X-XSRF-TOKEN unless `xsrf` is false (or a string: that value is sent instead).
   */
  request(path: string, init: GatewayRequestInit = {}): Promise<Response> {
    const { json, xsrf = true, ...rest } = init;
    const method = (rest.method ?? 'GET').toUpperCase();
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const echo =
      typeof xsrf === 'string' ? xsrf : xsrf && !['GET', 'HEAD', 'OPTIONS'].includes(method) ? this.xsrf : undefined;
    if (echo !== undefined) headers.set('x-xsrf-token', echo);
    return this.fetch(`${this.gatewayUrl}${path}`, {
      ...rest,
      method,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
  }

  getJson<T = unknown>(path: string): Promise<{ status: number; body: T; response: Response }> {
    return this.request(path).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as T,
      response,
    }));
  }
}

/** Starts a sign-in at the gateway and drives the provider until it sends the browser back: the callback URL, not yet fetched. */
export async function reachCallback(
  browser: GatewayBrowser,
  account: string,
  options: { returnTo?: string } = {},
): Promise<string> {
  const query = options.returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(options.returnTo)}`;
  return authorize(
    browser,
    `${browser.gatewayUrl}${loginStartPath}${query}`,
    account,
    `${browser.gatewayUrl}${callbackPath}`,
  );
}

/**
 * The whole browser sign-in: GET /oauth2/authorization/idp → provider /auth → login form → consent →
 * back to /login/oauth2/code/idp, whose answer (302 to returnTo, Set-Cookie GATEWAY_SESSION) is kept
 * in `callback`. Throws when no session cookie results.
 */
export async function login(
  gatewayUrl: string,
  account: string,
  options: { returnTo?: string } = {},
): Promise<GatewayBrowser> {
  const browser = new GatewayBrowser(gatewayUrl);
  const url = await reachCallback(browser, account, options);
  const response = await browser.fetch(url);
  browser.callback = { url, response };
  if (!browser.sessionId) {
    throw new Error(
      `signing in as ${account} set no ${sessionCookieName} cookie: ${response.status} ${await response.clone().text()}`,
    );
  }
  return browser;
}

// ---------------------------------------------------------------------------------------------
// A gateway on the provider

export type ClaimMappingEntry = Readonly<{
  claim: string;
  value: string;
  role: 'admin' | 'approver' | 'auditor';
  marketplace?: string;
}>;

export type OidcGatewayOptions = Readonly<{
  /** Accounts added to the provider's defaults (ignored when `idp` is given). */
  accounts?: Readonly<Record<string, TestAccount>>;
  /** gateway.roles.claim-mappings, written to a YAML file named by GATEWAY_CONFIG. */
  claimMappings?: readonly ClaimMappingEntry[];
  /** More configuration variables (GATEWAY_ROLES_ADMINS, GATEWAY_OIDC_USER_NAME_ATTRIBUTE, …); they win. */
  env?: Readonly<Record<string, string>>;
  /** A provider already running (a second replica): it only knows the redirect URIs it was started with. */
  idp?: TestIdp;
  /** A database already in use (a second replica); by default one of the test's own. */
  databaseUrl?: string;
  /** gateway.base-url; by default http://127.0.0.1:<the port it listens on>. */
  baseUrl?: string;
}>;

export type OidcGateway = Readonly<{
  gateway: TestGateway;
  idp: TestIdp;
  /** gateway.base-url: where the provider sends the browser back to. */
  baseUrl: string;
  databaseUrl: string;
  /** Signs in through this gateway (login() on its base URL). */
  login(account: string, options?: { returnTo?: string }): Promise<GatewayBrowser>;
  browser(): GatewayBrowser;
}>;

/**
 * A gateway signing people in at a real provider. The redirect URI must match the base URL, so the
 * port is chosen first and the gateway started with PORT and GATEWAY_BASE_URL; the provider listens on
 * a port of its own. Files (data dir, configuration) go to a directory of the helper's own, so that
 * t.testdir() stays free for the test (and two gateways can run in one test).
 */
export async function startGatewayWithOidc(t: Test, options: OidcGatewayOptions = {}): Promise<OidcGateway> {
  const port = await freePort();
  const baseUrl = options.baseUrl ?? `http://127.0.0.1:${port}`;
  const idp =
    options.idp ??
    (await startOidcProvider(t, {
      redirectUris: [`${baseUrl}${callbackPath}`],
      ...(options.accounts ? { accounts: options.accounts } : {}),
    }));
  const databaseUrl = options.databaseUrl ?? (await testDatabase(t)).url;

  const dir = mkdtempSync(join(tmpdir(), 'gateway-oidc-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    GATEWAY_DATABASE_URL: databaseUrl,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_LOG_LEVEL: 'silent',
    // As in testConfig: a command waits for its read models as long as a loaded machine needs.
    GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '30s',
    PORT: String(port),
    GATEWAY_BASE_URL: baseUrl,
    ...idp.gatewayEnv(),
  };
  if (options.claimMappings) {
    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      stringify({ gateway: { roles: { 'claim-mappings': options.claimMappings.map((m) => ({ ...m })) } } }),
    );
    env.GATEWAY_CONFIG = file;
  }
  const config = loadConfig({ env: { ...env, ...options.env }, cwd: dir });
  const started = await startGateway(config, silentLogger);
  t.teardown(() => started.close());
  const gateway: TestGateway = {
    ...started,
    fetch: (path, init) => fetch(`${started.url}${path}`, init),
    settled: () => settledOf(started),
  };
  return {
    gateway,
    idp,
    baseUrl,
    databaseUrl,
    login: (account, loginOptions) => login(baseUrl, account, loginOptions),
    browser: () => new GatewayBrowser(baseUrl),
  };
}
