import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DomainEvent } from '../../domain/events.ts';
import { asDomainEvent } from '../runner/dispatch.ts';
import type { Fields, LedgerDraft } from './ledger.fields.ts';
import { accessLedger } from './mapping/access.ledger.ts';
import { auditLedger } from './mapping/audit.ledger.ts';
import { catalogLedger } from './mapping/catalog.ledger.ts';
import { compactionLedger } from './mapping/compaction.ledger.ts';
import { estateLedger } from './mapping/estate.ledger.ts';
import { noLedgerEntry, type LedgerTable } from './mapping/ledger-table.ts';
import { marketplaceLedger } from './mapping/marketplace.ledger.ts';
import { mirrorLedger } from './mapping/mirror.ledger.ts';
import { policyLedger } from './mapping/policy.ledger.ts';
import { publicationLedger } from './mapping/publication.ledger.ts';
import { publishLedger } from './mapping/publish.ledger.ts';
import { retentionLedger } from './mapping/retention.ledger.ts';
import { roleLedger } from './mapping/role.ledger.ts';
import { snapshotLedger } from './mapping/snapshot.ledger.ts';
import { tokenLedger } from './mapping/token.ledger.ts';
import { vettingLedger } from './mapping/vetting.ledger.ts';
import { webhookLedger } from './mapping/webhook.ledger.ts';

/**
 * What every event contributes to the ledger, one table per concept (mapping/*.ledger.ts). Typed as the table of
 * the whole DomainEvent union, so an event type that no concept's table maps (or marks noLedgerEntry) does not
 * compile.
 */
const ledgerTable: LedgerTable<DomainEvent> = {
  ...marketplaceLedger,
  ...publishLedger,
  ...accessLedger,
  ...roleLedger,
  ...tokenLedger,
  ...snapshotLedger,
  ...publicationLedger,
  ...vettingLedger,
  ...policyLedger,
  ...catalogLedger,
  ...mirrorLedger,
  ...compactionLedger,
  ...retentionLedger,
  ...estateLedger,
  ...webhookLedger,
  ...auditLedger,
};

/** The event types that may make entries: the others (noLedgerEntry) never do. */
export const typesWithEntries: ReadonlySet<string> = new Set(
  Object.entries(ledgerTable)
    .filter(([, mapping]) => mapping !== noLedgerEntry)
    .map(([type]) => type),
);

/** An event's entries beyond their metadata: none, one, or (upload-pack) one per want. */
function fieldsOf(event: DomainEvent): Fields[] {
  // The table holds, under each type, the mapping of that type's events: the lookup loses only that correlation.
  const mapping = ledgerTable[event.type] as ((event: DomainEvent) => Fields[]) | typeof noLedgerEntry;
  return mapping === noLedgerEntry ? [] : mapping(event);
}

// A push (/publish) is a wire act as well: its source is the client address.
const facadeEvents = new Set(['info-refs', 'upload-pack', 'marketplace-pushed']);

export function ledgerDrafts(recorded: RecordedEvent): LedgerDraft[] {
  const event = asDomainEvent(recorded);
  if (!event) return [];
  const meta = recorded.metadata;
  // source is the client address for a facade fetch, the literal `admin` otherwise.
  const source = facadeEvents.has(recorded.type) ? (meta.source ?? 'unknown') : 'admin';
  return fieldsOf(event).map((fields) => ({
    position: recorded.position,
    ts: recorded.recordedAt,
    source,
    principal: meta.principal,
    actorType: meta.actorType,
    marketplace: fields.marketplace ?? '-',
    marketplaceId: fields.marketplaceId ?? null,
    event: fields.event ?? recorded.type,
    ref: fields.ref ?? null,
    sha: fields.sha ?? null,
    detail: fields.detail ?? null,
    tokenId: meta.credentialId ?? null,
    credential_kind: fields.credential_kind ?? null,
  }));
}
