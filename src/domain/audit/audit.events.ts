import type { Event, Instant } from '../kernel/decider.ts';

/**
 * The leader signed the ledger's head (docs/audit.md): `jws` is a compact JWS (EdDSA, Ed25519)
 * whose payload is `{"entryId":…,"hash":"…","signedAt":"…"}`; `kid` names the key. Kept as an event, so a
 * rebuild of the ledger read model gives the same checkpoints back (and the hashes they sign).
 */
export type AuditCheckpointSigned = Event<
  'audit-checkpoint-signed',
  { entryId: number; hash: string; signedAt: Instant; kid: string; jws: string }
>;

export type AuditEvent = AuditCheckpointSigned;
