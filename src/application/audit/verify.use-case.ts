import { compactVerify, importJWK, type JWK } from 'jose';
import { chainHash, genesisHash, type ChainedFields } from '../../projections/ledger/ledger.chain.ts';

/** A checkpoint as GET /api/v1/audit/checkpoints lists it (only jws is trusted: the rest is read from it). */
export type CheckpointInput = Readonly<{ jws: string }>;
export type SignedHead = Readonly<{ entryId: number; hash: string; signedAt: string }>;

/** Why verification stopped: the first entry (by id) that breaks the chain or a checkpoint, or a bad checkpoint. */
export type ChainBreak = Readonly<{ entryId: number | null; line: number | null; reason: string }>;

/** Checks each checkpoint's signature with the public JWK; the heads it signs, or the first that does not verify. */
export async function verifyCheckpoints(
  checkpoints: readonly CheckpointInput[],
  publicJwk: JWK,
): Promise<{ heads: SignedHead[] } | { failure: ChainBreak }> {
  const key = await importJWK({ ...publicJwk, alg: 'EdDSA' }, 'EdDSA');
  const heads: SignedHead[] = [];
  for (const [index, checkpoint] of checkpoints.entries()) {
    try {
      const { payload, protectedHeader } = await compactVerify(checkpoint.jws, key, { algorithms: ['EdDSA'] });
      if (protectedHeader.typ !== 'gateway-ledger-checkpoint') throw new Error('not a ledger checkpoint');
      heads.push(JSON.parse(new TextDecoder().decode(payload)) as SignedHead);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { failure: { entryId: null, line: null, reason: `checkpoint ${index + 1} does not verify: ${why}` } };
    }
  }
  return { heads };
}

const fields = [
  'id',
  'ts',
  'source',
  'principal',
  'actor_type',
  'marketplace',
  'marketplace_id',
  'event',
  'ref',
  'sha',
  'detail',
  'token_id',
  'hash',
  'prev_hash',
] as const;

type ExportedEntry = ChainedFields & Readonly<{ hash: string; prev_hash: string }>;

function asEntry(line: string): ExportedEntry | null {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    return fields.every((f) => f in value) && Number.isSafeInteger(value.id) ? (value as ExportedEntry) : null;
  } catch {
    return null;
  }
}

/**
 * Recomputes the chain over an export read line by line (docs/audit.md). The first entry of a file that
 * starts after entry 1 is taken on its own prev_hash (nothing before it can be checked); a signed head
 * whose entry is in the file must carry that entry's hash.
 */
export class ChainVerifier {
  entries = 0;
  first: number | null = null;
  last: { id: number; hash: string } | null = null;
  checkedHeads = 0;
  private readonly heads: Map<number, SignedHead[]>;

  constructor(heads: readonly SignedHead[]) {
    this.heads = new Map();
    for (const head of heads) this.heads.set(head.entryId, [...(this.heads.get(head.entryId) ?? []), head]);
  }

  /** Feeds one line (1-based `line`); a break, or null while the chain holds. */
  feed(text: string, line: number): ChainBreak | null {
    if (text.trim() === '') return null;
    const e = asEntry(text);
    if (!e) return { entryId: null, line, reason: 'not a ledger entry of the export (hash and prev_hash needed)' };
    const broken = (reason: string): ChainBreak => ({ entryId: e.id, line, reason });
    if (this.last === null) {
      if (e.id === 1 && e.prev_hash !== genesisHash) return broken('entry 1 does not start from the genesis hash');
    } else {
      if (e.id !== this.last.id + 1) return broken(`follows entry ${this.last.id}: entries in between are missing`);
      if (e.prev_hash !== this.last.hash) return broken(`prev_hash is not the hash of entry ${this.last.id}`);
    }
    if (chainHash(e.prev_hash, e) !== e.hash) return broken('its content does not hash to its hash');
    for (const head of this.heads.get(e.id) ?? []) {
      if (head.hash !== e.hash) return broken(`its hash differs from the checkpoint signed at ${head.signedAt}`);
      this.checkedHeads += 1;
    }
    this.first ??= e.id;
    this.last = { id: e.id, hash: e.hash };
    this.entries += 1;
    return null;
  }
}
