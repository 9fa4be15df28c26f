// Wiring of the built-in issuer of a first run (docs/local-idp.md) into `gateway serve`: decided and prepared
// before anything else starts (a refusal stops the start), its paths added to the server, started
// once the base URL in force is known, its first password shown once on the console.
import type { Logger } from 'pino';
import type { GatewayConfig } from './adapters/config/schema.ts';
import { LocalIdp, passwordBanner } from './adapters/identity/local-idp/local-idp.ts';
import { localIdpRuns } from './adapters/identity/local-idp/mode.ts';
import { localAdmin, passwordFile } from './adapters/identity/local-idp/password.ts';
import { localIdpRoutes } from './http/auth/local-idp.route.ts';
import type { HttpApp, HttpDeps } from './http/http-deps.ts';

type MutableDeps = { -readonly [K in keyof HttpDeps]: HttpDeps[K] };

/** Where the first password is shown: stderr, apart from the JSON log on stdout. */
export type Notice = (text: string) => void;
const toStderr: Notice = (text) => process.stderr.write(text);

export class FirstRunSignIn {
  private readonly idp: LocalIdp;
  private constructor(idp: LocalIdp) {
    this.idp = idp;
  }

  /** null when the built-in issuer does not run; throws LocalIdpRefused when it must not run here. */
  static async prepare(config: GatewayConfig): Promise<FirstRunSignIn | null> {
    if (!localIdpRuns(config)) return null;
    return new FirstRunSignIn(await LocalIdp.prepare(config.dataDir, new Date()));
  }

  /** Its account among the administrators (like gateway.roles.admins), before anything reads the settings. */
  static admit<D extends MutableDeps>(signIn: FirstRunSignIn | null, deps: D): D {
    if (signIn) deps.access = { ...deps.access, configAdmins: [...deps.access.configAdmins, localAdmin] };
    return deps;
  }

  /** Its paths on the server. */
  async mount(app: HttpApp, deps: HttpDeps): Promise<void> {
    await localIdpRoutes(app, deps, this.idp);
  }

  /** On the base URL in force; the gateway signs in through it from now on. */
  async start(deps: MutableDeps, logger: Logger, notice: Notice = toStderr): Promise<void> {
    deps.identity = await this.idp.start(deps.baseUrl);
    const first = this.idp.firstPassword;
    logger.info(
      { issuer: `${deps.baseUrl}/local-idp`, account: localAdmin, firstStart: first !== null },
      first === null
        ? 'no identity provider configured: built-in sign-in at /local-idp (password set earlier; gateway local-idp reset-password sets a new one)'
        : 'no identity provider configured: built-in sign-in at /local-idp; its generated password is printed once on stderr, never logged',
    );
    if (first !== null) notice(passwordBanner(first, deps.baseUrl, passwordFile(this.idp.dataDir)));
  }
}
