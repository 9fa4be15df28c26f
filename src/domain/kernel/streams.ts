// Streams are `<category>-<id>`; a category is one word because EventStoreDB's by-category
// projection splits at the first hyphen (docs/architecture.md, Names).
export const streams = {
  marketplace: (id: number) => `marketplace-${id}`,
  marketplaceName: (name: string) => `marketplacename-${name}`,
  access: (marketplaceId: number | null) => `access-${marketplaceId ?? 'estate'}`,
  token: (id: number) => `token-${id}`,
  /** Every role grant lives in one stream, so an identical grant is refused without a race. */
  roles: () => 'roles-grants',
  /** Recorded reads (roles-read): facts with no decision, appended at any revision. */
  reads: (what: string) => `reads-${what}`,
  /** Vetting runs of one snapshot. */
  vetting: (snapshotId: number) => `vetting-${snapshotId}`,
  /** The chain's mode, order and vetter toggles. */
  vettingSettings: () => 'vettingsettings-global',
  waivers: (marketplaceId: number) => `waivers-${marketplaceId}`,
  policyRules: () => 'policyrules-global',
  /** What publication's startup reconciliation repaired in one marketplace's published repository. */
  publication: (marketplaceId: number) => `publication-${marketplaceId}`,
  /** A failed removal of a revoked snapshot's refs, recorded once. */
  unpublishFailed: (snapshotId: number) => `unpublishfailed-${snapshotId}`,
  /** Accepted pushes to a hosted marketplace (/publish). */
  publish: (marketplaceId: number) => `publish-${marketplaceId}`,
  /** One catalog revision (`catalog-<sha>`) or withdrawal, recorded once. */
  catalog: (revision: string) => `catalog-${revision}`,
  /** The attempts at one outbound delivery. */
  delivery: (deliveryId: number) => `delivery-${deliveryId}`,
  /** The batches offered to one audit sink. */
  sinkBatches: (sinkId: number) => `sinkbatches-${sinkId}`,
  /** Retention's evaluation passes (retention-evaluated), one fact each. */
  retention: () => 'retention-passes',
  /** Compaction's housekeeping sweeps (staging-refs-swept, webhook-deliveries-swept), one fact each. */
  compaction: () => 'compaction-passes',
  /** The forge mirror's passes (mirror-reconciled, mirror-reconciliation-refused) and the requests for one. */
  mirror: () => 'mirror-passes',
  /** The declarative estate's runs (estate-reconcile-triggered, estate-reconciliation-failed) and what they found. */
  estate: () => 'estate-runs',
} as const;
