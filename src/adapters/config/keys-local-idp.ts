// gateway.local-idp.* (docs/local-idp.md): the built-in OpenID Connect issuer of a first run with nothing configured.
import { Type, type TBoolean, type TNull, type TUnion } from 'typebox';
import { g } from './key-values.ts';
import type { ConfigKeySpec } from './key-spec.ts';

/** true, false, or unset (the gateway decides). */
const optionalFlag = (key: string, description: string): ConfigKeySpec<TUnion<[TBoolean, TNull]>> => ({
  key,
  kind: 'boolean',
  schema: Type.Union([Type.Boolean(), Type.Null()]),
  default: null,
  description,
});

export const localIdpKeys = {
  localIdp: {
    enabled: optionalFlag(
      g('local-idp.enabled'),
      'The built-in OpenID Connect issuer at /local-idp with one local account, admin (docs/local-idp.md). Unset: it ' +
        'runs when neither gateway.oidc.issuer nor gateway.dev-insecure-auth is set, and startup is refused when ' +
        'gateway.base-url is not a loopback address. true: it runs on any base URL (still off when an identity ' +
        'provider or the development hatch is configured). false: it never runs (nobody can sign in without an ' +
        'identity provider).',
    ),
  },
};
