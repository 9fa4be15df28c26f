// The one description of the gateway's configuration: a tree shaped like the typed, camelCase
// GatewayConfig with one entry per dotted key (kind, default, description, checks, whether its
// feature is built). The result schema, the key table, the YAML walk, the environment variables,
// `gateway config` and docs/configuration.md are all derived from it: adding a key is one entry.
import type { Static } from 'typebox';
import { keysOf, objectSchemaOf, type PlacedKeySpec } from './key-spec.ts';
import { auditExportKeys, marketplaceKeys, policyKeys, vettingKeys, webhookKeys } from './keys-governance.ts';
import { estateFileKeys } from './keys-estate.ts';
import { localIdpKeys } from './keys-local-idp.ts';
import { rateLimitKeys } from './keys-limits.ts';
import { mirrorKeys } from './keys-mirror.ts';
import { outboundKeys } from './keys-outbound.ts';
import { housekeepingKeys, retentionKeys } from './keys-retention.ts';
import { credentialKeys, identityKeys, platformKeys } from './keys-platform.ts';

export { ConfigError } from './config-error.ts';
export type { ConfigDefault, ConfigKeySpec, ConfigKind } from './key-spec.ts';
export {
  catalogNamePattern,
  claimMappingRoles,
  ClaimMappingInputSchema,
  ClaimMappingSchema,
  eventStoreBackends,
  logLevels,
  revetModes,
  storageBackends,
  type ClaimMapping,
  type ClaimMappingRole,
  type EventStoreBackend,
  type LogLevel,
  type RevetMode,
  type StorageBackend,
} from './key-values.ts';

// The order of the entries is the order of the key table, `gateway config` and docs/configuration.md.
export const configDescription = {
  ...platformKeys,
  ...identityKeys,
  ...localIdpKeys,
  ...marketplaceKeys,
  webhooks: webhookKeys,
  auditExport: auditExportKeys,
  vetting: vettingKeys,
  policy: policyKeys,
  retention: retentionKeys,
  housekeeping: housekeepingKeys,
  rateLimit: rateLimitKeys,
  ...credentialKeys,
  ...estateFileKeys,
  ...mirrorKeys,
  ...outboundKeys,
};

/** The schema of the typed configuration, derived from the description. */
export const GatewayConfigSchema = objectSchemaOf(configDescription);

/** The typed configuration. `loadConfig` returns it deeply frozen. */
export type GatewayConfig = Static<typeof GatewayConfigSchema>;

/** Every key, flat, in the order of the description, with where its value sits in GatewayConfig. */
export const configKeyTable: readonly PlacedKeySpec[] = keysOf(configDescription);

/** The environment variable that overrides a key: upper-cased, `.` and `-` turned to `_`. */
export const envVarName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');
