import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DomainEvent } from '../../domain/events.ts';
import { mirrorFields } from './ledger.mapping-mirror.ts';
import { targetLedgerDetail } from '../../domain/webhook/webhook.events.ts';
import { asDomainEvent } from '../runner/dispatch.ts';
import type { Fields, LedgerDraft } from './ledger.fields.ts';
import { estateFields, publicationFields, retentionFields } from './ledger.mapping-more.ts';

export type { LedgerDraft } from './ledger.fields.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What each event contributes to the ledger: nothing, one entry, or (upload-pack) one per want. */
// eslint-disable-next-line max-lines-per-function -- a flat mapping: one case per event type
function fieldsOf(event: DomainEvent): Fields[] {
  switch (event.type) {
    case 'marketplace-registered':
      return [
        {
          marketplace: event.data.name,
          marketplaceId: event.data.marketplaceId,
          detail: `origin=${event.data.origin}`,
        },
      ];
    case 'marketplace-removed': {
      const { name, marketplaceId, reason, withdrawnSnapshotIds } = event.data;
      // marketplace-removed detail: "withdrew {n} approved snapshot(s); reason"
      const detail = `withdrew ${plural(withdrawnSnapshotIds.length, 'approved snapshot')}; ${reason}`;
      return [{ marketplace: name, marketplaceId, detail }];
    }
    case 'marketplace-push-scopes-removed':
      return [
        {
          marketplace: event.data.name,
          marketplaceId: event.data.marketplaceId,
          detail: `publish grant removed from tokens ${event.data.tokenIds.join(', ')}`,
        },
      ];
    case 'sync-mode-changed': {
      const d = event.data;
      // Never the secret, not even sealed.
      const secret =
        d.mode === 'webhook'
          ? '; a new webhook secret was issued'
          : d.previousMode === 'webhook'
            ? '; the webhook secret was discarded'
            : '';
      return [
        {
          marketplace: d.name,
          marketplaceId: d.marketplaceId,
          detail: `mode=${d.mode} (was ${d.previousMode})${secret}`,
        },
      ];
    }
    case 'marketplace-selection-set': {
      const { name, marketplaceId, include, exclude } = event.data;
      const detail =
        include.length === 0 && exclude.length === 0
          ? 'selection cleared: every plugin is served from the next ingest'
          : `include=${include.length === 0 ? 'every plugin' : `[${include.join(', ')}]`} exclude=[${exclude.join(', ')}]; takes effect at the next ingest`;
      return [{ marketplace: name, marketplaceId, detail }];
    }
    case 'marketplace-pushed': {
      const d = event.data;
      // Both tips on the entry (allow-rewrite records both tips on the ledger); sha is the new one.
      const detail = `previousTip=${d.previousTip ?? 'none'} newTip=${d.newTip} forced=${d.forced} pushPolicy=${d.pushPolicy}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, ref: d.ref, sha: d.newTip, detail }];
    }
    case 'info-refs':
      return [
        {
          marketplace: event.data.marketplace,
          marketplaceId: event.data.marketplaceId,
          ref: event.data.ref,
          sha: event.data.sha,
          credentialKind: event.data.credentialKind,
        },
      ];
    case 'upload-pack':
      return event.data.wants.map((want) => ({
        marketplace: event.data.marketplace,
        marketplaceId: event.data.marketplaceId,
        ref: want.ref,
        sha: want.sha,
        credentialKind: event.data.credentialKind,
      }));
    case 'role-granted':
    case 'role-revoked': {
      const { role, principal, marketplace, marketplaceId, grantId } = event.data;
      const verb = event.type === 'role-granted' ? 'granted to' : 'revoked from';
      return [
        { marketplace: marketplace ?? '-', marketplaceId, detail: `grant ${grantId}: ${role} ${verb} ${principal}` },
      ];
    }
    case 'roles-read':
      return [{ detail: `grants=${event.data.grants}` }];
    case 'token-issued': {
      const d = event.data;
      const scopes =
        d.kind === 'machine' ? `apiScopes=${d.apiScopes.join(',')}` : `scopes=${d.scopes.join(',') || '*'}`;
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
    }
    case 'token-revoked': {
      const d = event.data;
      if (d.cause === 'rotated') return []; // the rotated entry of the new token records it
      const detail = `token ${d.tokenId} '${d.name}'`;
      return [
        d.kind === 'machine'
          ? { event: 'machine-credential-revoked', detail: `principal=${d.principal} ${detail}` }
          : { event: 'token-revoked', detail },
      ];
    }
    case 'snapshot-captured': {
      const d = event.data;
      const detail =
        d.violation === null ? `snapshot ${d.snapshotId} held` : `snapshot ${d.snapshotId} rejected: ${d.violation}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail }];
    }
    case 'plugin-withheld': {
      const d = event.data;
      const detail = `snapshot ${d.snapshotId}: plugin '${d.plugin}' withheld; source ${JSON.stringify(d.source)}; ${d.reason}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail }];
    }
    case 'ingest-succeeded': {
      const d = event.data;
      const detail = `snapshot ${d.snapshotId}${d.created ? '' : ' (commit already captured)'}; trigger=${d.trigger}`;
      return [{ marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail }];
    }
    case 'ingest-failed': {
      const d = event.data;
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          detail: `${d.reason}; root cause: ${d.rootCause}; next step: ${d.nextStep}`,
        },
      ];
    }
    case 'snapshot-approved':
    case 'snapshot-rejected': {
      const d = event.data;
      const override =
        event.type === 'snapshot-approved' && event.data.overrideReason
          ? `; override: ${event.data.overrideReason}`
          : event.type === 'snapshot-rejected' && event.data.reason
            ? `; reason: ${event.data.reason}`
            : '';
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId}${override}`,
        },
      ];
    }
    case 'snapshot-revoked': {
      const d = event.data;
      const where = { marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha };
      // A revocation appends snapshot-revoked and snapshot-unpublished; the refs go.
      return [
        { ...where, detail: `snapshot ${d.snapshotId}: ${d.reason}` },
        {
          ...where,
          event: 'snapshot-unpublished',
          ref: `refs/snapshots/${d.sha}`,
          detail: `snapshot ${d.snapshotId}: refs removed from publication`,
        },
      ];
    }
    case 'publication-repaired':
    case 'snapshot-unpublish-failed':
    case 'publication-served-not-approved':
      return publicationFields(event);
    case 'vetting-verdict': {
      const d = event.data;
      const was = d.previousState === null ? '' : ` (was ${d.previousState})`;
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId} run ${d.runId}: ${d.verdict.connector} ${d.verdict.state}${was}; ${plural(d.verdict.findings.length, 'finding')}; trigger=${d.trigger}`,
        },
      ];
    }
    case 'vetting-completed': {
      const d = event.data;
      // vetting-completed: trigger, outcome, count, run id, chain
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId}: trigger=${d.trigger} outcome=${d.outcome} count=${d.verdicts.length} run=${d.runId} chain=${d.chain.join(',')}`,
        },
      ];
    }
    case 'vetter-toggled': {
      const d = event.data;
      // Each change with actor, vetter, scope, new state and reason (the actor is the entry's principal).
      return [
        {
          marketplace: d.marketplace ?? '-',
          marketplaceId: d.marketplaceId,
          detail: `vetter=${d.vetter} scope=${d.scope === 'global' ? 'global' : `marketplace:${d.marketplace}`} state=${d.enabled ? 'enabled' : 'disabled'}; reason: ${d.reason}`,
        },
      ];
    }
    case 'vetting-chain-mode-changed':
      return [{ detail: `vetter=* scope=global state=mode:${event.data.mode}; reason: ${event.data.reason}` }];
    case 'vetting-chain-order-changed':
      return [
        { detail: `vetter=* scope=global state=order:${event.data.order.join(',')}; reason: ${event.data.reason}` },
      ];
    case 'waiver-created': {
      const d = event.data;
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.scope === 'SNAPSHOT' ? d.scopeValue : null,
          detail: `waiver ${d.waiverId}: rule=${d.ruleId} scope=${d.scope}:${d.scopeValue} snapshot=${d.snapshotId} expires=${d.expiresAt}; ${d.justification}`,
        },
      ];
    }
    case 'waiver-revoked':
      return [
        {
          marketplace: event.data.marketplace,
          marketplaceId: event.data.marketplaceId,
          detail: `waiver ${event.data.waiverId}: rule=${event.data.ruleId} revoked`,
        },
      ];
    case 'waiver-lapsed':
      return [
        {
          marketplace: event.data.marketplace,
          marketplaceId: event.data.marketplaceId,
          detail: `waiver ${event.data.waiverId}: rule=${event.data.ruleId} lapsed at ${event.data.expiresAt}`,
        },
      ];
    case 'revet-clear':
    case 'revet-inconclusive':
    case 'revet-violation': {
      const d = event.data;
      const revoked = event.type === 'revet-violation' ? ` revoked=${event.data.revoked}` : '';
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId} run ${d.runId}: mode=${d.mode} outcome=${d.outcome}${revoked} uncovered=${d.uncovered.map((u) => `${u.ruleId}@${u.location}`).join(',') || 'none'}; trigger=${d.trigger}`,
        },
      ];
    }
    case 'revet-violation-affected': {
      const d = event.data;
      const who = d.affected
        .map((a) => `${a.principal} (${a.fetches} fetch${a.fetches === 1 ? '' : 'es'}, last ${a.lastFetch})`)
        .join('; ');
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId} run ${d.runId}: received by ${who || 'nobody'}`,
        },
      ];
    }
    case 'policy-rule-created':
    case 'policy-rule-updated':
      return [
        {
          detail: `rule '${event.data.name}' (${event.data.ruleId}) enabled=${event.data.enabled}: ${event.data.expression}`,
        },
      ];
    case 'policy-rule-deleted':
      return [{ detail: `rule '${event.data.name}' (${event.data.ruleId})` }];
    case 'policy-denied': {
      const d = event.data;
      return [
        {
          marketplace: d.marketplace,
          marketplaceId: d.marketplaceId,
          sha: d.sha,
          detail: `snapshot ${d.snapshotId}: rule '${d.rule}' ${d.outcome}${d.error === null ? '' : `: ${d.error}`}`,
        },
      ];
    }
    case 'catalog-rebuilt': {
      const d = event.data;
      // catalog-rebuilt (detail: sha, constituents count, collisions count); the catalog under its own name.
      const detail =
        d.sha === null
          ? `withdrawn: no marketplace is served; trigger=${d.trigger}`
          : `sha=${d.sha} constituents=${d.constituents.length} collisions=${d.collisions.length} plugins=${d.plugins}; trigger=${d.trigger}`;
      return [{ marketplace: d.catalog, ref: d.sha === null ? null : 'refs/heads/main', sha: d.sha, detail }];
    }
    case 'catalog-name-collision': {
      const d = event.data;
      return [
        {
          marketplace: d.catalog,
          sha: d.sha,
          detail: `plugin '${d.name}' claimed by ${d.marketplaces.join(', ')}: withheld from the catalog`,
        },
      ];
    }
    case 'snapshot-soft-deleted':
    case 'snapshot-restored':
    case 'snapshot-purged':
    case 'retention-evaluated':
    case 'staging-refs-swept':
    case 'webhook-deliveries-swept':
      return retentionFields(event);
    case 'estate-reconcile-triggered':
    case 'estate-reconciliation-failed':
    case 'marketplace-upstream-unreachable':
      return estateFields(event);
    case 'mirror-reconciled':
    case 'mirror-reconcile-requested':
    case 'mirror-reconciliation-refused':
      return mirrorFields(event);
    case 'catalog-rebuild-requested':
      return []; // the catalog-rebuilt it leads to is the entry, with the requester as principal
    case 'token-used':
    case 'marketplace-name-reserved':
    case 'marketplace-name-released':
    case 'webhook-delivery-attempted': // delivering is not an act to audit: each batch would feed the next
    case 'audit-batch-offered':
    case 'audit-checkpoint-signed': // signing the head is not an entry: it would move the head it signs
      return [];
    default: // webhook subscribers and audit sinks, with the acting admin as principal
      return [{ detail: targetLedgerDetail(event) }];
  }
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
    credentialKind: fields.credentialKind ?? null,
  }));
}
