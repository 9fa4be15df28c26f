import { randomBytes } from 'node:crypto';
import { UpstreamError } from '../../adapters/git/git-store.ts';
import { normalizedCloneUrl } from '../../domain/kernel/forge.ts';
import { marketplaceDecider } from '../../domain/marketplace/marketplace.decider.ts';
import { marketplaceNameDecider, type StaleHolder } from '../../domain/marketplace/marketplace-name.decider.ts';
import type { MarketplaceOrigin, PushPolicy, SyncMode } from '../../domain/marketplace/marketplace.events.ts';
import { canonicalUrl, registrationRefusal } from '../../domain/marketplace/trust-boundary.ts';
import { manifestPath, readManifest } from '../../domain/plugin/manifest-policy.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { isMarketplaceName } from '../../domain/kernel/names.ts';
import { streams } from '../../domain/kernel/streams.ts';
import {
  liveMarketplaceByName,
  liveMarketplaces,
  marketplaceById,
  type MarketplaceRecord,
} from '../../projections/marketplaces/marketplaces.queries.ts';
import { pushScopeHolders } from '../../projections/tokens/tokens.queries.ts';
import { execute } from '../kernel/execute.ts';
import { refuseDeniedHost } from '../outbound/outbound-checks.ts';
import type { Ports } from '../kernel/ports.ts';
import { reject, Rejected } from '../kernel/rejected.ts';

// The name streams feed no read model (nor the ledger): their commands wait for none, so a registration
// appends its marketplace right after its name (decision: the stale-holder grace).
const nameReadModels: readonly string[] = [];

export type MarketplacePorts = Pick<
  Ports,
  'store' | 'waiter' | 'pool' | 'ids' | 'gitStore' | 'catalog' | 'marketplaces' | 'outbound'
>;

export type Registration = Readonly<{
  name: string;
  url: string | null;
  ref: string | null;
  origin: MarketplaceOrigin;
  pushPolicy: PushPolicy | null;
}>;

/**
 * What an upstream that cannot be read does to a registration: the API refuses it (502, nothing registered);
 * the declarative estate registers it anyway (and records marketplace-upstream-unreachable). With
 * `probeManifest` the upstream's default branch is also checked for a marketplace an ingest would accept,
 * and what is wrong with it comes back as a warning (the API's registrations; never a refusal).
 */
export type RegistrationOptions = Readonly<{ unreadableUpstream: 'refuse' | 'register'; probeManifest?: boolean }>;

/** The check of a new upstream's marketplace: bounded in time, and in size as the ingest reads the file. */
export const registrationProbe = { timeoutMs: 15_000, maxBytes: 1024 * 1024 } as const;

/**
 * What an ingest of the upstream's tip would make of its marketplace, as a registration warning, or null
 * when it would hold the commit for review. A probe that could not fetch in time is a warning too.
 */
async function manifestWarning(deps: MarketplacePorts, url: string, branch: string): Promise<string | null> {
  let bytes: Buffer | null;
  try {
    bytes = await deps.gitStore.probeUpstreamFile(url, branch, manifestPath, registrationProbe);
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return `the upstream was not checked for a marketplace (${error.rootCause}): ${error.nextStep}`;
  }
  if (bytes === null)
    return (
      `no marketplace on the default branch (${branch}): ${manifestPath} is missing, so an ingest would capture ` +
      'the commit as rejected; add the file upstream, then ingest'
    );
  const reading = readManifest(bytes.toString('utf8'));
  if (reading.ok) return null;
  return (
    `the marketplace on the default branch (${branch}) would be rejected at ingest: ${reading.violation}; ` +
    'fix it upstream, then ingest'
  );
}

/** A live marketplace by the name in the path; removed and unknown names answer alike. */
export async function liveOr404(deps: Pick<Ports, 'pool'>, name: string): Promise<MarketplaceRecord> {
  const marketplace = isMarketplaceName(name) ? await liveMarketplaceByName(deps.pool, name) : null;
  if (!marketplace) throw reject('marketplace-not-found', `no live marketplace is named '${name}'`);
  return marketplace;
}

const upstreamProblem = (error: UpstreamError) =>
  reject('upstream-unreadable', `${error.reason}: ${error.rootCause}`, {
    reason: error.reason,
    rootCause: error.rootCause,
    nextStep: error.nextStep,
  });

/** The 422, 400 and 409 refusals in that order (decision 46), all before the upstream is read. */
async function registrationChecks(deps: MarketplacePorts, wanted: Registration): Promise<void> {
  const { name, url, ref, origin, pushPolicy } = wanted;
  if (!isMarketplaceName(name)) {
    throw reject(
      'invalid-name',
      `'${name}' is not a valid marketplace name: it is the /git/<name> path clients clone, and must match ^[a-z0-9][a-z0-9_-]{0,62}$`,
    );
  }
  const refusal = registrationRefusal({ origin, url, ref, pushPolicy }, deps.marketplaces.allowedUrlSchemes);
  if (refusal) throw new Rejected(refusal);
  // decision 343: an upstream the gateway may not connect to is refused here, before it is read.
  if (url !== null)
    await refuseDeniedHost(deps, canonicalUrl(url), 'the upstream url is outside the outbound boundary');
  if (await liveMarketplaceByName(deps.pool, name))
    throw reject('marketplace-name-taken', `a live marketplace is already named '${name}'`);
  // The virtual catalog is served at /git/<gateway.catalog.name>: a marketplace of that name would be shadowed.
  if (deps.catalog.enabled && name === deps.catalog.name) {
    throw reject(
      'marketplace-name-taken',
      `'${name}' is the name of the virtual catalog (gateway.catalog.name), served at /git/${name}`,
    );
  }
}

/**
 * Reserves the name for a new marketplace. A name still held by a marketplace that was removed, or that
 * never registered (a registration or removal cut off between its two appends, e.g. by a crash), is taken
 * over; a name held by a live marketplace, or by a registration that may still be running, stays taken.
 */
async function reserveName(deps: MarketplacePorts, name: string, marketplaceId: number, meta: CommandMeta) {
  const reserve = (staleHolder?: StaleHolder) =>
    execute(
      deps,
      marketplaceNameDecider,
      streams.marketplaceName(name),
      {
        type: 'reserve-marketplace-name',
        data: { name, marketplaceId, ...(staleHolder ? { staleHolder } : {}) },
        meta,
      },
      nameReadModels,
    );
  const holderOf = (error: unknown) => (error instanceof Rejected ? error.rejection.extensions?.['holder'] : undefined);
  // The holder's id is the decider's to know, not the caller's: the 409 answers without it.
  const taken = () => reject('marketplace-name-taken', `a live marketplace is already named '${name}'`);
  let holder: unknown;
  try {
    await reserve();
    return;
  } catch (error) {
    holder = holderOf(error);
    if (typeof holder !== 'number') throw error;
  }
  const record = await marketplaceById(deps.pool, holder);
  if (record !== null && record.removedAt === null) throw taken();
  await reserve({ marketplaceId: holder, removed: record !== null }).catch((error: unknown) => {
    throw typeof holderOf(error) === 'number' ? taken() : error;
  });
}

/**
 * Registers a marketplace: the checks, then the upstream read (docs/marketplaces.md, Registration), then the name
 * reservation and the registration; a failed registration releases the name. Returns the record and the duplicate-URL
 * warnings.
 */
export async function registerMarketplace(
  deps: MarketplacePorts,
  wanted: Registration,
  meta: CommandMeta,
  options: RegistrationOptions = { unreadableUpstream: 'refuse', probeManifest: true },
): Promise<{ marketplace: MarketplaceRecord; warnings: string[]; unreadableUpstream: UpstreamError | null }> {
  await registrationChecks(deps, wanted);
  const { name, origin, pushPolicy } = wanted;
  const url = wanted.url === null ? null : canonicalUrl(wanted.url);
  // The upstream is read only after all other checks pass; if it is unreadable nothing is registered
  // (through the API; the estate registers it anyway, and says so).
  let unreadableUpstream: UpstreamError | null = null;
  let probed: string | null = null;
  if (url !== null) {
    try {
      const { branch } = await deps.gitStore.remoteDefaultBranch(url);
      if (options.probeManifest) probed = await manifestWarning(deps, url, branch);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (options.unreadableUpstream === 'refuse') throw upstreamProblem(error);
      unreadableUpstream = error;
    }
  }

  const marketplaceId = await deps.ids('marketplace');
  await reserveName(deps, name, marketplaceId, meta);
  try {
    await execute(
      deps,
      marketplaceDecider,
      streams.marketplace(marketplaceId),
      {
        type: 'register-marketplace',
        data: {
          marketplaceId,
          name,
          origin,
          url,
          pushPolicy: origin === 'hosted' ? (pushPolicy ?? 'append-only') : null,
        },
        meta,
      },
      ['marketplaces', 'ledger'],
    );
  } catch (error) {
    // Only a refused registration certainly left nothing behind; after any other failure the registration
    // may stand, and a name left reserved is taken over by the next registration (reserveName).
    if (error instanceof Rejected) {
      await execute(
        deps,
        marketplaceNameDecider,
        streams.marketplaceName(name),
        {
          type: 'release-marketplace-name',
          data: { name, marketplaceId },
          meta,
        },
        nameReadModels,
      );
    }
    throw error;
  }
  const marketplace = (await marketplaceById(deps.pool, marketplaceId))!;
  const others = (await liveMarketplaces(deps.pool)).filter(
    (m) =>
      m.id !== marketplaceId && m.url !== null && url !== null && normalizedCloneUrl(m.url) === normalizedCloneUrl(url),
  );
  const warnings = others.map((m) => `url already registered as ${m.name}`);
  return { marketplace, warnings: probed === null ? warnings : [...warnings, probed], unreadableUpstream };
}

export type Removal = Readonly<{
  id: number;
  name: string;
  removedAt: string;
  removedBy: string;
  withdrawnSnapshotIds: number[];
  pushScopeRemovedFromTokenIds: number[];
}>;

/** Retires a marketplace: every approval withdrawn, publish grants naming it removed, the name released. */
export async function removeMarketplace(
  deps: MarketplacePorts,
  name: string,
  reason: string,
  meta: CommandMeta,
): Promise<Removal> {
  const marketplace = await liveOr404(deps, name);
  if (reason.trim() === '') throw reject('invalid-request', 'a removal needs a reason');
  const holders = await pushScopeHolders(deps.pool, marketplace.name);
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(marketplace.id),
    {
      type: 'remove-marketplace',
      data: { reason: reason.trim(), pushScopeTokenIds: holders },
      meta,
    },
    ['marketplaces', 'snapshots', 'tokens', 'ledger', 'publication'],
  );
  await execute(
    deps,
    marketplaceNameDecider,
    streams.marketplaceName(marketplace.name),
    {
      type: 'release-marketplace-name',
      data: { name: marketplace.name, marketplaceId: marketplace.id },
      meta,
    },
    nameReadModels,
  );
  const removed = decision.events.find((e) => e.type === 'marketplace-removed');
  if (removed?.type !== 'marketplace-removed') throw new Error('removal decided without a removal');
  return {
    id: marketplace.id,
    name: marketplace.name,
    removedAt: removed.data.removedAt,
    removedBy: removed.data.removedBy,
    withdrawnSnapshotIds: [...removed.data.withdrawnSnapshotIds],
    pushScopeRemovedFromTokenIds: holders,
  };
}

/** A webhook secret as forges take it: 32 random bytes, hex. */
const newWebhookSecret = (): string => randomBytes(32).toString('hex');

/**
 * Sets how a marketplace is ingested. Entering webhook mode issues a new secret, sealed in the event and
 * returned once; the mode a marketplace already has changes nothing and issues none.
 */
export async function changeSyncMode(
  deps: Pick<Ports, 'store' | 'waiter' | 'pool' | 'secrets'>,
  name: string,
  mode: SyncMode,
  meta: CommandMeta,
): Promise<{ marketplace: MarketplaceRecord; webhookSecret: string | null }> {
  const marketplace = await liveOr404(deps, name);
  const secret = newWebhookSecret();
  const decision = await execute(
    deps,
    marketplaceDecider,
    streams.marketplace(marketplace.id),
    {
      type: 'change-sync-mode',
      data: { mode, sealedWebhookSecret: deps.secrets.seal(secret) },
      meta,
    },
    ['marketplaces', 'ledger'],
  );
  const entered = decision.events.some((e) => e.type === 'sync-mode-changed' && e.data.mode === 'webhook');
  return {
    marketplace: (await liveMarketplaceByName(deps.pool, marketplace.name))!,
    webhookSecret: entered ? secret : null,
  };
}
