/** An entry before the projection gives it its id (ids follow event order, so a rebuild repeats them). */
export type LedgerDraft = Readonly<{
  position: bigint;
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
  credentialKind: string | null;
}>;

/** What an event contributes to one ledger entry, beyond what its metadata gives. */
export type Fields = Partial<
  Pick<LedgerDraft, 'event' | 'marketplace' | 'marketplaceId' | 'ref' | 'sha' | 'detail' | 'credentialKind'>
>;
