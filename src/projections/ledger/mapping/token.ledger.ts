import type { TokenEvent } from '../../../domain/token/token.events.ts';
import { noLedgerEntry, type LedgerTable } from './ledger-table.ts';

/** Personal and session tokens, and machine credentials (whose entries name their principal). */
export const tokenLedger: LedgerTable<TokenEvent> = {
  'token-issued': ({ data: d }) => {
    const scopes = d.kind === 'machine' ? `apiScopes=${d.apiScopes.join(',')}` : `scopes=${d.scopes.join(',') || '*'}`;
    const detail = `token ${d.tokenId} '${d.name}' ${scopes} expires=${d.expiresAt ?? 'never'}${d.rotatedFrom === null ? '' : ` rotatedFrom=${d.rotatedFrom}`}`;
    if (d.kind === 'machine') {
      // machine-credential-created/-rotated; the actor is the administrator.
      return [
        {
          event: d.rotatedFrom === null ? 'machine-credential-created' : 'machine-credential-rotated',
          detail: `principal=${d.principal} ${detail}`,
        },
      ];
    }
    return [{ event: d.rotatedFrom === null ? 'token-created' : 'token-rotated', detail }];
  },
  'token-revoked': ({ data: d }) => {
    if (d.cause === 'rotated') return []; // the rotated entry of the new token records it
    const detail = `token ${d.tokenId} '${d.name}'`;
    return [
      d.kind === 'machine'
        ? { event: 'machine-credential-revoked', detail: `principal=${d.principal} ${detail}` }
        : { event: 'token-revoked', detail },
    ];
  },
  'token-used': noLedgerEntry, // lastUsedAt is not an act
};
