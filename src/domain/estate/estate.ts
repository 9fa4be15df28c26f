// The declarative estate (docs/estate.md): what `gateway.estate.file` declares, after parsing and validation
// (src/domain/estate/estate-file.ts parses; src/application/estate/apply-estate.ts applies). Additive: the
// reconciler creates and updates what is declared, never deletes what is not.
import type { MarketplaceOrigin, PushPolicy, SyncMode } from '../marketplace/marketplace.events.ts';
import type { RoleName } from '../role/role.events.ts';
import type { SecretReference } from '../kernel/secret-reference.ts';

/** Where a declared item sits in the file, for messages and report details. */
export type EstateLocation = Readonly<{ line: number }>;

export type DeclaredMarketplace = Readonly<{
  name: string;
  origin: MarketplaceOrigin;
  /** Upstream URL; null for a hosted marketplace. */
  url: string | null;
  /** The ref ingested (the trust boundary allows main only); null: the upstream's default branch. */
  ref: string | null;
  syncMode: SyncMode | null;
  /** Hosted marketplaces only. */
  pushPolicy: PushPolicy | null;
  at: EstateLocation;
}>;

export type DeclaredGrant = Readonly<{
  principal: string;
  role: RoleName;
  /** The marketplace a scoped role (approver) applies to; null for an estate-wide role. */
  marketplace: string | null;
  at: EstateLocation;
}>;

export type DeclaredWebhook = Readonly<{
  url: string;
  events: readonly string[];
  description: string | null;
  /** The signing secret, as a reference; null: the gateway issues one (then it is never shown again). */
  secret: SecretReference | null;
  at: EstateLocation;
}>;

export type DeclaredAuditSink = Readonly<{
  name: string;
  url: string;
  secret: SecretReference | null;
  at: EstateLocation;
}>;

export type Estate = Readonly<{
  marketplaces: readonly DeclaredMarketplace[];
  grants: readonly DeclaredGrant[];
  webhooks: readonly DeclaredWebhook[];
  auditSinks: readonly DeclaredAuditSink[];
}>;

/** The estate reconciliation report: one line per declared item. */
export const estateEntryKinds = ['marketplace', 'grant', 'webhook', 'audit-sink'] as const;
export type EstateEntryKind = (typeof estateEntryKinds)[number];
export const estateActions = ['created', 'updated', 'unchanged', 'failed'] as const;
export type EstateAction = (typeof estateActions)[number];

export type EstateReportEntry = Readonly<{
  kind: EstateEntryKind;
  name: string;
  action: EstateAction;
  /** Never a secret. */
  detail: string | null;
}>;

export type EstateReport = Readonly<{
  ranAt: string;
  trigger: 'startup' | 'api';
  entries: readonly EstateReportEntry[];
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}>;
