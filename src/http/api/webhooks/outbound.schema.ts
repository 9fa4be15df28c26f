import { Type, type Static, type TSchema } from 'typebox';
import type { exportEntry } from '../../../application/outbound/audit-sink-push.duty.ts';
import { marketplaceOrigins, pushPolicies } from '../../../domain/marketplace/marketplace.events.ts';
import { deletionReasons, ingestTriggers } from '../../../domain/snapshot/snapshot.events.ts';
import type { WebhookEventKind } from '../../../domain/webhook/event-kinds.ts';
import type { OutboundData } from '../../../domain/webhook/outbound.ts';

// The `data` of every outbound body (docs/webhooks.md), for the OpenAPI `webhooks` object. The domain's event
// types decide what is sent (outbound.ts, outboundEvents); the compile-time check at the end of this file fails
// when a schema and the data it describes part ways. No `additionalProperties: false`: within a major the
// surface only grows (docs/api.md, Versioning), so a receiver ignores properties it does not know.

const text = (description: string) => Type.String({ description });
const maybeText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const id = (description: string) => Type.Integer({ description });
const instant = (description: string) => Type.String({ format: 'date-time', description });
const maybeInstant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const snapshotIdentity = {
  snapshotId: id('The snapshot (GET /api/v1/snapshots/{id}).'),
  marketplaceId: id('The marketplace the snapshot belongs to.'),
  marketplace: text('The marketplace name (the /git/<name> path).'),
  sha: text('The commit the gateway serves for this snapshot.'),
};

const UnresolvedSource = Type.Object({
  plugin: text('The plugin withheld.'),
  source: Type.Record(Type.String(), Type.Unknown(), { description: 'Its source as written upstream.' }),
  reason: text('What failed and why.'),
  nextStep: text('What to do about it.'),
  line: id('The line of its entry in the upstream manifest.'),
});

const LeftOut = Type.Object({
  plugin: text('The plugin left out.'),
  reason: text('Which rule of the selection left it out.'),
});

const snapshotCaptured = Type.Object({
  ...snapshotIdentity,
  upstreamSha: text(
    'The commit ingested from upstream (differs from sha when the gateway serves a commit of its own).',
  ),
  state: Type.Enum(['held', 'rejected'], { description: 'held, or rejected at once when its manifest breaks policy.' }),
  violation: maybeText('The policy violation that rejected it; null when held.'),
  capturedAt: instant('When it was captured.'),
  ingestedBy: maybeText('The principal that triggered the ingest; null when none was recorded.'),
  trigger: Type.Enum(ingestTriggers, { description: 'What started the ingest.' }),
  committedAt: maybeInstant("The tip's commit time upstream."),
  description: maybeText("The marketplace manifest's description."),
  unresolved: Type.Optional(
    Type.Array(UnresolvedSource, { description: 'Plugins withheld: their external source could not be read.' }),
  ),
  leftOut: Type.Optional(Type.Array(LeftOut, { description: "Plugins the marketplace's selection left out." })),
});

const snapshotRevoked = Type.Object({
  ...snapshotIdentity,
  reason: text('Why: the re-vet finding, or the removal reason.'),
  administrative: Type.Boolean({ description: 'true for a withdrawal by marketplace removal, false for a re-vet.' }),
  revokedAt: instant('When it was revoked.'),
  revokedBy: text('The principal that revoked it.'),
});

const snapshotApproved = Type.Object({
  ...snapshotIdentity,
  approvedAt: instant('When it was approved.'),
  approvedBy: text('The approver.'),
  overrideReason: maybeText("An administrator's reason for approving over a blocked vetting outcome."),
});

const snapshotRejected = Type.Object({
  ...snapshotIdentity,
  rejectedAt: instant('When it was rejected.'),
  rejectedBy: text('The principal that rejected it.'),
  reason: Type.Optional(text('Why, in the reviewer’s words; absent when none was given.')),
});

const marketplaceRegistered = Type.Object({
  marketplaceId: id('The marketplace (its id is never reused).'),
  name: text('Its name (the /git/<name> path).'),
  origin: Type.Enum(marketplaceOrigins, { description: 'upstream (ingested from url) or hosted (pushed to).' }),
  url: maybeText('The upstream URL; null for a hosted marketplace.'),
  pushPolicy: Type.Union([Type.Enum(pushPolicies), Type.Null()], {
    description: 'append-only or allow-rewrite for a hosted marketplace; null for an upstream one.',
  }),
  registeredAt: instant('When it was registered.'),
  registeredBy: maybeText('The principal that registered it; null when none was recorded.'),
});

const marketplaceRemoved = Type.Object({
  marketplaceId: id('The marketplace removed.'),
  name: text('Its name, free again for a new marketplace.'),
  reason: text('The reason given.'),
  removedAt: instant('When it was removed.'),
  removedBy: text('The principal that removed it.'),
  withdrawnSnapshotIds: Type.Array(Type.Integer(), {
    description: 'Its approved snapshots, withdrawn (each also sent as marketplace.snapshot.revoked).',
  }),
});

const ingestFailed = Type.Object({
  marketplaceId: id('The marketplace.'),
  marketplace: text('Its name.'),
  at: instant('When the ingest failed.'),
  reason: text('What failed.'),
  rootCause: text('Why.'),
  nextStep: text('What to do about it.'),
  trigger: Type.Enum(ingestTriggers, { description: 'What started the ingest.' }),
});

const catalogRebuilt = Type.Object({
  catalog: text('The catalog name (its /git/<name> path).'),
  sha: maybeText('The revision now served; null when the catalog was withdrawn (nothing served).'),
  generatedAt: instant('When the revision was built.'),
  trigger: Type.Enum(['api', 'reactor', 'startup'], {
    description: 'What started the build: the rebuild endpoint, a change of what is served, or startup.',
  }),
  constituents: Type.Array(
    Type.Object({ marketplace: text('A served marketplace.'), sha: text('The commit of it the revision lists.') }),
    { description: 'The served marketplaces the revision was built from.' },
  ),
  collisions: Type.Array(
    Type.Object({ name: text('A plugin name claimed more than once.'), marketplaces: Type.Array(Type.String()) }),
    { description: 'Contested plugin names, withheld from the catalog.' },
  ),
  plugins: id('Plugins listed in the revision.'),
});

/** The ledger entry in the export's form (docs/audit.md, Entries), as GET /api/v1/audit/export writes it. */
export const ExportEntry = Type.Object({
  id: id('The entry id, ascending in ledger order: de-duplicate on it.'),
  ts: instant('When it was recorded.'),
  source: text('The client address for a facade fetch; admin for an administrative action.'),
  principal: text('Who acted.'),
  actor_type: text('human, machine or system.'),
  marketplace: text('The marketplace name as recorded; - when the entry concerns none.'),
  marketplace_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The marketplace id; null when none.' }),
  event: text('The ledger event name.'),
  ref: maybeText('The git ref concerned, if any.'),
  sha: maybeText('The commit concerned, if any.'),
  detail: maybeText('A free-text qualifier.'),
  token_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The credential of a facade or machine API entry; null on interactive admin entries.',
  }),
  hash: text('SHA-256 (hex) of prev_hash and the canonical JSON of the entry (docs/audit.md).'),
  prev_hash: text('The previous entry hash; 64 zeros for entry 1 (docs/audit.md).'),
});

/** A signed head of the ledger (docs/audit.md), as GET /api/v1/audit/checkpoints lists it. */
export const LedgerCheckpoint = Type.Object({
  entryId: id('The entry whose hash is signed (the head when signed).'),
  hash: text('That entry hash.'),
  signedAt: instant('When the leader signed it.'),
  kid: text('The signing key id (RFC 7638 thumbprint of the public JWK).'),
  jws: text('Compact JWS, EdDSA (Ed25519), payload {entryId, hash, signedAt}.'),
});

const auditBatch = Type.Object({
  sink: text('The sink name.'),
  from: id('The cursor the batch starts after (exclusive): the id of the last entry delivered before it.'),
  to: id('The id of the last entry in the batch; the cursor moves here once the batch is delivered (2xx).'),
  entries: Type.Array(ExportEntry, { description: 'Ledger entries after from up to to, in ledger order.' }),
  checkpoint: Type.Union([LedgerCheckpoint, Type.Null()], {
    description: 'The latest signed checkpoint of the ledger when the batch was sent; null before the first.',
  }),
});

const snapshotSoftDeleted = Type.Object({
  ...snapshotIdentity,
  reason: Type.Enum(deletionReasons, {
    description: 'manual (DELETE by an admin), or the retention criterion that selected it: held-too-long, superseded.',
  }),
  deletedAt: instant('When it was soft-deleted.'),
  deletedBy: text('The admin, or retention-policy for a deletion by a retention criterion.'),
  purgeAfter: instant('Until when it can be restored; compaction purges it after.'),
});

const snapshotRestored = Type.Object({
  ...snapshotIdentity,
  restoredAt: instant('When its deletion marks were cleared.'),
  restoredBy: text('The admin who restored it.'),
});

/** Every kind's `data`. */
export const outboundDataSchemas = {
  'marketplace.snapshot.revoked': snapshotRevoked,
  'marketplace.snapshot.soft_deleted': snapshotSoftDeleted,
  'marketplace.snapshot.restored': snapshotRestored,
  'marketplace.snapshot.captured': snapshotCaptured,
  'marketplace.snapshot.approved': snapshotApproved,
  'marketplace.snapshot.rejected': snapshotRejected,
  'marketplace.registered': marketplaceRegistered,
  'marketplace.removed': marketplaceRemoved,
  'marketplace.ingest_failed': ingestFailed,
  'catalog.rebuilt': catalogRebuilt,
  'audit.batch': auditBatch,
} as const satisfies Record<WebhookEventKind, TSchema>;

// Compile-time: each sent kind's schema describes exactly the data outboundOf sends (same keys, each
// direction assignable; readonly aside), and an audit batch's entries are exportEntry's.
type Mutable<T> = T extends readonly (infer U)[]
  ? Mutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;
type Exactly<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
type Described = OutboundData & { 'audit.batch': { entries: ReturnType<typeof exportEntry>[] } };
type Mismatched = {
  [K in keyof Described]: Exactly<
    Mutable<K extends 'audit.batch' ? Described[K]['entries'][number] : Described[K]>,
    Static<K extends 'audit.batch' ? typeof ExportEntry : (typeof outboundDataSchemas)[K]>
  > extends true
    ? never
    : K;
}[keyof Described];
const everyKindDescribed: [Mismatched] extends [never] ? true : Mismatched = true;
void everyKindDescribed;
