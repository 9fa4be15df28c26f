import { z } from 'zod';
import { sql } from '../../adapters/postgres/pool.ts';
import type { Projection } from '../runner/projection.ts';
import { ledgerDrafts } from './ledger.mapping.ts';

export const ledgerProjection: Projection = {
  name: 'ledger',
  version: 1,
  tables: ['ledger_entries'],
  createSql: [
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
      credential_kind text
    )`,
    'create index ledger_entries_marketplace on ledger_entries (marketplace, id)',
    'create index ledger_entries_position on ledger_entries (position)',
  ],
  async apply(tx, events) {
    const drafts = events.flatMap(ledgerDrafts);
    if (drafts.length === 0) return;
    const last = await tx.oneFirst(sql.type(z.object({ id: z.bigint() }))`
      select coalesce(max(id), 0)::bigint as id from ledger_entries`);
    const rows = drafts.map((draft, index) => ({
      id: (last + BigInt(index + 1)).toString(),
      position: draft.position.toString(),
      ts: draft.ts,
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
      credential_kind: draft.credentialKind,
    }));
    await tx.query(sql.unsafe`
      insert into ledger_entries
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(
        id bigint, position bigint, ts timestamptz, source text, principal text, actor_type text,
        marketplace text, marketplace_id bigint, event text, ref text, sha text, detail text,
        token_id bigint, credential_kind text)`);
  },
};
