import { hash } from 'node:crypto';

/**
 * The tamper-evident chain over the ledger (docs/audit.md): every entry's hash is
 * SHA-256(prev_hash ‖ canonical JSON of the entry), hex, where prev_hash is the previous entry's hash as
 * 64 lowercase hex characters (the genesis value below for entry 1) and ‖ is concatenation of UTF-8 text.
 */
export const genesisHash = '0'.repeat(64);

/** The hashed fields: an entry in its export form (snake case, no credential_kind), without hash and prev_hash. */
export type ChainedFields = Readonly<{
  id: number;
  ts: string;
  source: string;
  principal: string;
  actor_type: string;
  marketplace: string;
  marketplace_id: number | null;
  event: string;
  ref: string | null;
  sha: string | null;
  detail: string | null;
  token_id: number | null;
}>;

/**
 * RFC 8785 (JCS) for this shape: members in code-unit order of their names, ECMAScript JSON.stringify for
 * strings, integers and null (which JCS adopts as its serialization), no whitespace.
 */
export function canonicalEntry(e: ChainedFields): string {
  return JSON.stringify({
    actor_type: e.actor_type,
    detail: e.detail,
    event: e.event,
    id: e.id,
    marketplace: e.marketplace,
    marketplace_id: e.marketplace_id,
    principal: e.principal,
    ref: e.ref,
    sha: e.sha,
    source: e.source,
    token_id: e.token_id,
    ts: e.ts,
  });
}

export function chainHash(prevHash: string, e: ChainedFields): string {
  return hash('sha256', prevHash + canonicalEntry(e), 'hex');
}
