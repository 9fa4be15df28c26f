/**
 * A ledger entry (docs/audit.md, Entries) as GET /api/v1/audit answers it: the one declaration of its fields. The
 * stored row spells them in snake case (mapped once, in ledger.queries.ts, and written by ledger.projection.ts), as
 * does the export (which omits credential_kind); credential_kind is snake case in every form, as documented.
 */
export type LedgerEntry = Readonly<{
  id: number;
  ts: string;
  source: string;
  principal: string;
  actorType: string;
  marketplace: string;
  marketplaceId: number | null;
  event: string;
  ref: string | null;
  sha: string | null;
  detail: string | null;
  tokenId: number | null;
  credential_kind: string | null;
  /** The chain (ledger.chain.ts, docs/audit.md), beside the entry's own fields. */
  hash: string;
  prevHash: string;
}>;

/**
 * An entry as the mapping gives it, before the projection numbers and chains it (ids follow event order, so a
 * rebuild repeats them): the position of its event instead of an id, and `ts` as the store recorded it.
 */
export type LedgerDraft = Omit<LedgerEntry, 'id' | 'hash' | 'prevHash'> & Readonly<{ position: bigint }>;

/** What an event contributes to one ledger entry, beyond what its metadata gives. */
export type Fields = Partial<
  Pick<LedgerDraft, 'event' | 'marketplace' | 'marketplaceId' | 'ref' | 'sha' | 'detail' | 'credential_kind'>
>;
