import { z } from 'zod';
import { sql, type DatabaseTransactionConnection } from '../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { Projection } from '../runner/projection.ts';
import { chainHash, genesisHash } from './ledger.chain.ts';
import type { LedgerDraft } from './ledger.fields.ts';
import { ledgerDrafts, typesWithEntries } from './ledger.mapping.ts';

// Version 2 (docs/audit.md): hash and prev_hash on every entry, and the signed checkpoints of the head.
// Version 3: indexes for the ledger browser's principal, event and time filters (decision 420).
const createSql = [
  `
    create table ledger_entries (
      id bigint primary key,
      position bigint not null,
      ts timestamptz not null,
      source text not null,
      principal text not null,
      actor_type text not null,
      marketplace text not null,
      marketplace_id bigint,
      event text not null,
      ref text,
      sha text,
      detail text,
      token_id bigint,
      credential_kind text,
      hash text not null,
      prev_hash text not null
    )`,
  'create index ledger_entries_marketplace on ledger_entries (marketplace, id)',
  'create index ledger_entries_position on ledger_entries (position)',
  'create index ledger_entries_principal on ledger_entries (principal, id)',
  'create index ledger_entries_event on ledger_entries (event, id)',
  'create index ledger_entries_ts on ledger_entries (ts)',
  `
    create table audit_checkpoints (
      position bigint primary key,
      entry_id bigint not null,
      hash text not null,
      signed_at timestamptz not null,
      kid text not null,
      jws text not null
    )`,
];

/** The rows of a batch of drafts after entry `lastId` whose hash is `lastHash`; `hashing` off only for the bench. */
export function ledgerRows(drafts: readonly LedgerDraft[], lastId: number, lastHash: string, hashing = true) {
  let prev = lastHash;
  return drafts.map((draft, index) => {
    const fields = {
      id: lastId + index + 1,
      // The instant as every read answers it (ISO-8601, milliseconds), so the export hashes back the same.
      ts: new Date(draft.ts).toISOString(),
      source: draft.source,
      principal: draft.principal,
      actor_type: draft.actorType,
      marketplace: draft.marketplace,
      marketplace_id: draft.marketplaceId,
      event: draft.event,
      ref: draft.ref,
      sha: draft.sha,
      detail: draft.detail,
      token_id: draft.tokenId,
    };
    const hash = hashing ? chainHash(prev, fields) : prev;
    const row = {
      ...fields,
      position: draft.position.toString(),
      credential_kind: draft.credential_kind,
      hash,
      prev_hash: prev,
    };
    prev = hash;
    return row;
  });
}

async function appendEntries(tx: DatabaseTransactionConnection, drafts: LedgerDraft[], hashing: boolean) {
  const last = await tx.maybeOne(sql.type(z.object({ id: z.bigint(), hash: z.string() }))`
    select id, hash from ledger_entries order by id desc limit 1`);
  const rows = ledgerRows(drafts, last ? Number(last.id) : 0, last?.hash ?? genesisHash, hashing);
  await tx.query(sql.unsafe`
    insert into ledger_entries
      (id, position, ts, source, principal, actor_type, marketplace, marketplace_id, event, ref, sha, detail,
       token_id, credential_kind, hash, prev_hash)
    select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(
      id bigint, position bigint, ts timestamptz, source text, principal text, actor_type text,
      marketplace text, marketplace_id bigint, event text, ref text, sha text, detail text,
      token_id bigint, credential_kind text, hash text, prev_hash text)`);
}

async function storeCheckpoints(tx: DatabaseTransactionConnection, events: readonly RecordedEvent[]) {
  const rows = events
    .filter((e) => e.type === 'audit-checkpoint-signed')
    .map((e) => ({ position: e.position.toString(), ...(e.data as Record<string, unknown>) }));
  if (rows.length === 0) return;
  await tx.query(sql.unsafe`
    insert into audit_checkpoints (position, entry_id, hash, signed_at, kid, jws)
    select position, "entryId", hash, "signedAt", kid, jws from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as x(position bigint, "entryId" bigint, hash text, "signedAt" timestamptz, kid text, jws text)`);
}

/** The ledger read model; `hashing: false` exists only for bench/audit-chain.ts (the cost of the chain). */
export function ledgerProjectionOf(options: Readonly<{ hashing: boolean }>): Projection {
  return {
    name: 'ledger',
    version: 3,
    tables: ['ledger_entries', 'audit_checkpoints'],
    createSql,
    // A batch of none of these only moves the checkpoint, with the other idle projections'.
    eventTypes: new Set([...typesWithEntries, 'audit-checkpoint-signed']),
    async apply(tx, events) {
      const drafts = events.flatMap(ledgerDrafts);
      if (drafts.length > 0) await appendEntries(tx, drafts, options.hashing);
      await storeCheckpoints(tx, events);
    },
  };
}

export const ledgerProjection: Projection = ledgerProjectionOf({ hashing: true });
