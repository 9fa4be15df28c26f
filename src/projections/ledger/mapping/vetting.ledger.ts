import type { RevetClear, RunRef, VettingEvent } from '../../../domain/vetting/vetting.events.ts';
import { plural, type LedgerTable } from './ledger-table.ts';

/** The entry of a run on one snapshot: its marketplace and commit, and a detail. */
const ofRun = (d: RunRef, detail: string) => [
  { marketplace: d.marketplace, marketplaceId: d.marketplaceId, sha: d.sha, detail },
];

/** A re-vet's classification; `revoked` only on a violation. */
const revet = (d: RevetClear['data'], revoked: string) =>
  ofRun(
    d,
    `snapshot ${d.snapshotId} run ${d.runId}: mode=${d.mode} outcome=${d.outcome}${revoked} uncovered=${d.uncovered.map((u) => `${u.ruleId}@${u.location}`).join(',') || 'none'}; trigger=${d.trigger}`,
  );

const chainSetting = (state: string, reason: string) => [
  { detail: `vetter=* scope=global state=${state}; reason: ${reason}` },
];

/** Vetting runs and their verdicts, the chain's settings, waivers, and re-vets (docs/vetting.md). */
export const vettingLedger: LedgerTable<VettingEvent> = {
  'vetting-verdict': ({ data: d }) => {
    const was = d.previousState === null ? '' : ` (was ${d.previousState})`;
    return ofRun(
      d,
      `snapshot ${d.snapshotId} run ${d.runId}: ${d.verdict.connector} ${d.verdict.state}${was}; ${plural(d.verdict.findings.length, 'finding')}; trigger=${d.trigger}`,
    );
  },
  // vetting-completed: trigger, outcome, count, run id, chain
  'vetting-completed': ({ data: d }) =>
    ofRun(
      d,
      `snapshot ${d.snapshotId}: trigger=${d.trigger} outcome=${d.outcome} count=${d.verdicts.length} run=${d.runId} chain=${d.chain.join(',')}`,
    ),
  // Each change with actor, vetter, scope, new state and reason (the actor is the entry's principal).
  'vetter-toggled': ({ data: d }) => [
    {
      marketplace: d.marketplace ?? '-',
      marketplaceId: d.marketplaceId,
      detail: `vetter=${d.vetter} scope=${d.scope === 'global' ? 'global' : `marketplace:${d.marketplace}`} state=${d.enabled ? 'enabled' : 'disabled'}; reason: ${d.reason}`,
    },
  ],
  'vetting-chain-mode-changed': ({ data: d }) => chainSetting(`mode:${d.mode}`, d.reason),
  'vetting-chain-order-changed': ({ data: d }) => chainSetting(`order:${d.order.join(',')}`, d.reason),
  'waiver-created': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      sha: d.scope === 'SNAPSHOT' ? d.scopeValue : null,
      detail: `waiver ${d.waiverId}: rule=${d.ruleId} scope=${d.scope}:${d.scopeValue} snapshot=${d.snapshotId} expires=${d.expiresAt}; ${d.justification}`,
    },
  ],
  'waiver-revoked': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      detail: `waiver ${d.waiverId}: rule=${d.ruleId} revoked`,
    },
  ],
  'waiver-lapsed': ({ data: d }) => [
    {
      marketplace: d.marketplace,
      marketplaceId: d.marketplaceId,
      detail: `waiver ${d.waiverId}: rule=${d.ruleId} lapsed at ${d.expiresAt}`,
    },
  ],
  'revet-clear': ({ data }) => revet(data, ''),
  'revet-inconclusive': ({ data }) => revet(data, ''),
  'revet-violation': ({ data }) => revet(data, ` revoked=${data.revoked}`),
  'revet-violation-affected': ({ data: d }) => {
    const who = d.affected
      .map((a) => `${a.principal} (${a.fetches} fetch${a.fetches === 1 ? '' : 'es'}, last ${a.lastFetch})`)
      .join('; ');
    return ofRun(d, `snapshot ${d.snapshotId} run ${d.runId}: received by ${who || 'nobody'}`);
  },
};
