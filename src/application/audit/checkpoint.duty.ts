import { CompactSign } from 'jose';
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import type { AuditSigningKey } from '../../adapters/system/audit-signing-key.ts';

export { auditSigningKey } from '../../adapters/system/audit-signing-key.ts';
import { fact } from '../../domain/events.ts';
import { latestCheckpoint, ledgerHead, type LedgerCheckpoint } from '../../projections/ledger/checkpoints.queries.ts';
import { periodicDuty, type WakeableDuty } from '../kernel/periodic-duty.ts';
import type { Ports } from '../kernel/ports.ts';
import { systemMeta } from '../kernel/system-meta.use-case.ts';

export type CheckpointPorts = Pick<Ports, 'pool' | 'clock' | 'logger' | 'store' | 'waiter'>;

export const checkpointStream = 'audit-checkpoints';

/** The JWS of a checkpoint: protected header {alg EdDSA, kid, typ}, payload {entryId, hash, signedAt} (docs/audit.md). */
export async function signHead(key: AuditSigningKey, head: { entryId: number; hash: string }, signedAt: string) {
  const payload = JSON.stringify({ entryId: head.entryId, hash: head.hash, signedAt });
  return new CompactSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'gateway-ledger-checkpoint' })
    .sign(key.privateKey);
}

/**
 * One pass: signs the ledger's head when it moved since the last checkpoint, recorded as
 * audit-checkpoint-signed (the ledger projection keeps it). Returns the checkpoint signed, or null.
 */
export async function checkpointPass(deps: CheckpointPorts, key: AuditSigningKey): Promise<LedgerCheckpoint | null> {
  const head = await ledgerHead(deps.pool);
  const last = await latestCheckpoint(deps.pool);
  if (!head || (last && last.entryId >= head.entryId)) return null;
  const signedAt = deps.clock.now().toISOString();
  const checkpoint = { ...head, signedAt, kid: key.kid, jws: await signHead(key, head, signedAt) };
  const meta = { ...systemMeta(deps, 'audit-checkpoint'), at: signedAt };
  const { position } = await appendFacts(
    deps.store,
    checkpointStream,
    [fact('audit-checkpoint-signed', checkpoint)],
    metadataOf(meta),
    'any',
  );
  await deps.waiter.waitFor(position, ['ledger']);
  return checkpoint;
}

/**
 * The leader signs the head every interval (gateway.audit-export.checkpoint-interval, 1 minute by default):
 * one duty, or none without a key (deps built by hand in tools and tests).
 */
export function checkpointDuties(
  deps: CheckpointPorts & Readonly<{ auditSigning?: AuditSigningKey }>,
  intervalMs: number,
): WakeableDuty[] {
  const key = deps.auditSigning;
  if (!key) return [];
  const kind = { component: 'audit-checkpoint', disabled: '', failure: 'signing the ledger head failed' };
  return [periodicDuty(deps.logger, kind, { enabled: true, intervalMs }, () => checkpointPass(deps, key))];
}
