// Role grants (docs/access.md, Roles): every grant, granting and revoking. The caller is already known to be an
// admin; these decide, record and answer from the read model the command has reached.
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { fact } from '../../domain/events.ts';
import { roleDecider } from '../../domain/role/role.decider.ts';
import type { RoleName } from '../../domain/role/role.events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { liveMarketplaceByName } from '../../projections/marketplaces/marketplaces.queries.ts';
import { allGrants, type GrantRecord } from '../../projections/roles/roles.queries.ts';
import { execute } from '../kernel/execute.ts';
import type { Ports } from '../kernel/ports.ts';

const readModels = ['roles', 'ledger'];

export type RolePorts = Pick<Ports, 'store' | 'waiter' | 'pool' | 'ids'>;

/** Every grant; every authorized read is recorded (roles-read, detail grants={n}), shown on the ledger. */
export async function readGrants(
  deps: Pick<Ports, 'store' | 'waiter' | 'pool'>,
  meta: CommandMeta,
): Promise<GrantRecord[]> {
  const grants = await allGrants(deps.pool);
  const read = fact('roles-read', { grants: grants.length });
  const { position } = await appendFacts(deps.store, streams.reads('roles'), [read], metadataOf(meta), 'any');
  await deps.waiter.waitFor(position, ['ledger']);
  return grants;
}

export type WantedGrant = Readonly<{ principal: string; role: RoleName; marketplace: string | null }>;

/** Grants a role; an approver grant names a marketplace, resolved to its id when one is live under that name. */
export async function grantRole(deps: RolePorts, wanted: WantedGrant, meta: CommandMeta): Promise<GrantRecord> {
  const live = wanted.marketplace === null ? null : await liveMarketplaceByName(deps.pool, wanted.marketplace);
  const grantId = await deps.ids('grant');
  await execute(
    deps,
    roleDecider,
    streams.roles(),
    {
      type: 'grant-role',
      data: { grantId, ...wanted, marketplaceId: live?.id ?? null },
      meta,
    },
    readModels,
  );
  const granted = (await allGrants(deps.pool)).find((g) => g.grantId === grantId);
  if (!granted) throw new Error(`grant ${grantId} missing from its read model after its command`);
  return granted;
}

/** Revokes a grant by id (configuration admins have no grant to revoke). */
export async function revokeRole(
  deps: Pick<Ports, 'store' | 'waiter'>,
  grantId: number,
  meta: CommandMeta,
): Promise<void> {
  await execute(deps, roleDecider, streams.roles(), { type: 'revoke-role', data: { grantId }, meta }, readModels);
}
