// Adoption (docs/audit-time-travel.md): GET /api/v1/adoption?days= and GET /api/v1/adoption/staleness, read from the
// adoption projection (upload-pack entries only; the catalog under its own name).
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import {
  marketplaceIdentities,
  snapshotAdoption,
  staleFetches,
  type SnapshotAdoptionRow,
} from '../../projections/adoption/adoption.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAuditorRole } from '../access/standing.ts';

/** The adoption window: 1..365 days, default 30. */
export const adoptionWindow = { min: 1, max: 365, default: 30 } as const;

export const clampDays = (days: number | undefined): number =>
  Math.min(Math.max(days ?? adoptionWindow.default, adoptionWindow.min), adoptionWindow.max);

export type SnapshotAdoption = Readonly<{
  sha: string;
  fetches: number;
  identities: number;
  lastFetch: string;
  current: boolean;
}>;

export type MarketplaceAdoption = Readonly<{
  marketplace: string;
  servedSha: string | null;
  fetches: number;
  identities: number;
  lastFetch: string;
  snapshots: SnapshotAdoption[];
}>;

export type StaleFetch = Readonly<{
  principal: string;
  marketplace: string;
  sha: string;
  lastFetch: string;
  servedSha: string | null;
}>;

type AdoptionPorts = Pick<Ports, 'pool' | 'access' | 'gitStore' | 'clock' | 'catalog'> &
  Readonly<{
    /** The catalog's served commit (null: disabled or serving nothing). */ catalogSha(): Promise<string | null>;
  }>;

const mainRef = 'refs/heads/main';

/** What every marketplace (and the catalog, by its name) serves now; a name absent serves nothing. */
async function servedTips(deps: AdoptionPorts, names: ReadonlySet<string> | null): Promise<Map<string, string>> {
  const live = (await liveMarketplaces(deps.pool)).filter((m) => names === null || names.has(m.name));
  // What the facade advertises (served-view.ts: cached until publication restamps the repository), so a
  // report does not spawn git once per marketplace.
  const tips = await Promise.all(
    live.map(async (m) => [m.name, (await deps.gitStore.servedView(m.id)).refs.get(mainRef) ?? null] as const),
  );
  const served = new Map<string, string>();
  for (const [name, sha] of tips) if (sha !== null) served.set(name, sha);
  if (deps.catalog.enabled && (names === null || names.has(deps.catalog.name))) {
    const sha = await deps.catalogSha();
    if (sha !== null) served.set(deps.catalog.name, sha);
  }
  return served;
}

/** The first UTC day of a window of `days` days ending today. */
const windowStart = (now: Date, days: number): string =>
  new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);

/** Per marketplace fetched in the window, by name; its snapshots newest fetch first. */
export async function adoptionReport(
  deps: AdoptionPorts,
  actor: Actor,
  days: number | undefined,
): Promise<MarketplaceAdoption[]> {
  await requireAuditorRole(deps, actor);
  const since = windowStart(deps.clock.now(), clampDays(days));
  const [rows, identities] = await Promise.all([
    snapshotAdoption(deps.pool, since),
    marketplaceIdentities(deps.pool, since),
  ]);
  const byMarketplace = new Map<string, SnapshotAdoptionRow[]>();
  for (const row of rows) byMarketplace.set(row.marketplace, [...(byMarketplace.get(row.marketplace) ?? []), row]);
  const served = await servedTips(deps, new Set(byMarketplace.keys()));
  return [...byMarketplace]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([marketplace, snapshots]) => {
      const servedSha = served.get(marketplace) ?? null;
      return {
        marketplace,
        servedSha,
        fetches: snapshots.reduce((sum, s) => sum + s.fetches, 0),
        identities: identities.get(marketplace) ?? 0,
        lastFetch: snapshots.reduce((last, s) => (s.lastFetch > last ? s.lastFetch : last), snapshots[0]!.lastFetch),
        snapshots: snapshots.map(({ sha, fetches, identities: who, lastFetch }) => ({
          sha,
          fetches,
          identities: who,
          lastFetch,
          current: sha === servedSha,
        })),
      };
    });
}

/** Window-free: each identity whose latest content-transferring fetch of a marketplace was not its served tip. */
export async function adoptionStaleness(deps: AdoptionPorts, actor: Actor): Promise<StaleFetch[]> {
  await requireAuditorRole(deps, actor);
  const served = await servedTips(deps, null);
  const rows = await staleFetches(deps.pool, served);
  return rows.map((row) => ({ ...row, servedSha: served.get(row.marketplace) ?? null }));
}
