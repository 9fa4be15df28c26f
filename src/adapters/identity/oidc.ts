import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as client from 'openid-client';

export type OidcSettings = Readonly<{
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  scopes: readonly string[];
  /** Expected `aud` of bearer tokens on the facade; the client id when unset. */
  audience: string | null;
  userNameAttribute: string;
  /** Sent as `prompt` at each sign-in (the built-in issuer asks for the password every time: `login`). */
  prompt?: string;
}>;

export type LoginChecks = Readonly<{ codeVerifier: string; nonce: string; state: string }>;

export class IdentityError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IdentityError';
  }
}

/** Identity-provider bearers on the facade: exp and nbf are checked with 60 seconds of leeway (docs/facade.md). */
export const bearerLeewaySeconds = 60;

/**
 * The identity provider as the gateway uses it: authorization code with PKCE for browser sessions,
 * and verification of its JWTs (access or ID tokens) presented on the git facade.
 */
export class OidcProvider {
  private configuration: Promise<client.Configuration> | null = null;
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null;

  readonly settings: OidcSettings;
  constructor(settings: OidcSettings) {
    this.settings = settings;
  }

  // Discovery happens on first use and is retried after a failure, so that the gateway starts (and
  // serves the facade) while the identity provider is down.
  private async config(): Promise<client.Configuration> {
    this.configuration ??= (async () => {
      const { issuer, clientId, clientSecret } = this.settings;
      const insecure = new URL(issuer).protocol === 'http:';
      return client.discovery(
        new URL(issuer),
        clientId,
        clientSecret ?? undefined,
        clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      );
    })().catch((error: unknown) => {
      this.configuration = null;
      throw new IdentityError(`the identity provider at ${this.settings.issuer} could not be discovered`, {
        cause: error,
      });
    });
    return this.configuration;
  }

  async authorizationUrl(redirectUri: string, checks: LoginChecks): Promise<URL> {
    const config = await this.config();
    return client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes.join(' '),
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      ...(this.settings.prompt ? { prompt: this.settings.prompt } : {}),
    });
  }

  /** Exchanges the code; returns the ID token's claims merged over the userinfo claims. */
  async completeLogin(callbackUrl: URL, checks: LoginChecks): Promise<Record<string, unknown>> {
    const config = await this.config();
    let tokens;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new IdentityError('the identity provider did not complete the sign-in', { cause: error });
    }
    const idClaims = (tokens.claims() ?? {}) as Record<string, unknown>;
    let userinfo: Record<string, unknown> = {};
    if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      userinfo = await client.fetchUserInfo(config, tokens.access_token, String(idClaims.sub)).catch(() => ({}));
    }
    return { ...userinfo, ...idClaims };
  }

  /** The claims of a valid provider JWT, or null: a refused token is simply not a credential. */
  async verifyBearer(jwt: string): Promise<JWTPayload | null> {
    try {
      const config = await this.config();
      const jwksUri = config.serverMetadata().jwks_uri;
      if (!jwksUri) return null;
      this.jwks ??= createRemoteJWKSet(new URL(jwksUri));
      const { payload } = await jwtVerify(jwt, this.jwks, {
        issuer: config.serverMetadata().issuer,
        audience: this.settings.audience ?? this.settings.clientId,
        clockTolerance: bearerLeewaySeconds,
        requiredClaims: ['aud', 'exp'],
      });
      return payload;
    } catch {
      return null;
    }
  }

  principalOf(claims: Readonly<Record<string, unknown>>): string | null {
    const value = claims[this.settings.userNameAttribute];
    return typeof value === 'string' && value !== '' ? value : null;
  }
}
