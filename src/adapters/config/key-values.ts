// The value sets and element schemas the configuration keys use, and the shorthands the key files share.
import { Type, type Static } from 'typebox';
import { httpUrl } from './checks.ts';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logFormats = ['auto', 'json', 'pretty'] as const;
export const eventStoreBackends = ['postgres', 'eventstoredb'] as const;
export const storageBackends = ['filesystem', 'object-store'] as const;
export const revetModes = ['WARN', 'ENFORCE'] as const;
export const claimMappingRoles = ['admin', 'approver', 'auditor'] as const;

export type LogLevel = (typeof logLevels)[number];
export type EventStoreBackend = (typeof eventStoreBackends)[number];
export type StorageBackend = (typeof storageBackends)[number];
export type RevetMode = (typeof revetModes)[number];
export type ClaimMappingRole = (typeof claimMappingRoles)[number];

/** A marketplace name: ^[a-z0-9][a-z0-9_-]{0,62}$ (kept local so this module stands alone). */
export const catalogNamePattern = '^[a-z0-9][a-z0-9_-]{0,62}$';

const closed = { additionalProperties: false } as const;

export const ClaimMappingSchema = Type.Object(
  {
    claim: Type.String(),
    value: Type.String(),
    role: Type.Enum(claimMappingRoles),
    marketplace: Type.Union([Type.String(), Type.Null()]),
  },
  closed,
);
export type ClaimMapping = Static<typeof ClaimMappingSchema>;

/** A claim mapping entry as written in the file, before defaults (marketplace optional). */
export const ClaimMappingInputSchema = Type.Object(
  {
    claim: Type.String({ minLength: 1 }),
    value: Type.String({ minLength: 1 }),
    role: Type.Enum(claimMappingRoles),
    marketplace: Type.Optional(Type.String({ pattern: catalogNamePattern })),
  },
  closed,
);

/** An http(s) URL without credentials (a query or fragment allowed). */
export const url = httpUrl({ bare: false });
export const notBuilt = { notBuilt: true } as const;
/** Every block below `gateway.`, as the description names it: shorter entries, same keys. */
export const g = (rest: string): string => `gateway.${rest}`;
