// The marketplace list, as every section reads it: GET /api/v1/marketplaces answers all live marketplaces with
// their snapshots (there is no per-marketplace read), so one cached answer under one key serves the
// list, a marketplace's page, the overview, the review queue, token scopes and the policy playground.
import { api, data, type Body } from './client';

export type Marketplace = Body<'/api/v1/marketplaces', 'get'>[number];
export type Snapshot = Marketplace['snapshots'][number];

export const marketplacesKey = ['marketplaces'] as const;

export const marketplacesQuery = () => ({
  queryKey: marketplacesKey,
  queryFn: () => data(api.GET('/api/v1/marketplaces')),
});

/** Where git and Claude Code fetch a marketplace through the gateway: every copyable client URL ends in `.git`. */
export const cloneUrl = (origin: string, marketplace: string): string => `${origin}/git/${marketplace}.git`;
