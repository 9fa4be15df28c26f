import t from 'tap';
import type { Grant } from '../../../../src/domain/role/role.decider.ts';
import {
  approvesFor,
  effectiveRoles,
  hasRole,
  isAdmin,
  isAuditorOrAdmin,
  rolesFromClaims,
  type ClaimMapping,
  type RoleAssignment,
} from '../../../../src/domain/role/permissions.ts';
import { rolesOf } from '../../../../src/application/access/standing.ts';
import type { Caller } from '../../../../src/http/auth/caller.ts';
import type { HttpDeps } from '../../../../src/http/http-deps.ts';

const mappings: ClaimMapping[] = [
  { claim: 'groups', value: 'platform', role: 'admin', marketplace: null },
  { claim: 'groups', value: 'acme-reviewers', role: 'approver', marketplace: 'acme' },
  { claim: 'dept', value: 'audit', role: 'auditor', marketplace: null },
  { claim: 'level', value: '7', role: 'auditor', marketplace: null },
];
const grant = (
  grantId: number,
  principal: string,
  role: Grant['role'],
  marketplace: string | null = null,
  marketplaceId: number | null = null,
): Grant => ({ grantId, principal, role, marketplace, marketplaceId });
const claimRole = (role: Grant['role'], marketplace: string | null = null): RoleAssignment => ({
  role,
  marketplace,
  marketplaceId: null,
  source: 'claim',
});
const brief = (roles: readonly RoleAssignment[]) =>
  roles.map(({ role, marketplace, source }) => ({ role, marketplace, source }));

t.test('claim roles: a mapping holds when the claim equals the value or is a list containing it', async (t) => {
  t.strictSame(rolesFromClaims({ groups: 'platform' }, mappings), [claimRole('admin')], 'a string claim');
  t.strictSame(
    rolesFromClaims({ groups: ['x', 'acme-reviewers', 'platform'] }, mappings),
    [claimRole('admin'), claimRole('approver', 'acme')],
    'a claim array: every matching mapping',
  );
  t.strictSame(rolesFromClaims({ level: [7] }, mappings), [claimRole('auditor')], 'list items compare as text');
  t.strictSame(rolesFromClaims({ level: 7 }, mappings), [claimRole('auditor')], 'a scalar compares as text');
  t.strictSame(
    rolesFromClaims({ groups: ['platforms', 'Platform', 'acme'] }, mappings),
    [],
    'no partial or case-folded match',
  );
  t.strictSame(rolesFromClaims({ groups: null, dept: undefined }, mappings), [], 'null and absent claims hold nothing');
  t.strictSame(rolesFromClaims({ dept: 'audit' }, []), [], 'no mappings, no roles');
  t.strictSame(rolesFromClaims({ groups: 'platform,acme-reviewers' }, mappings), [], 'a string is not split');
});

t.test(
  'spec, Session: a role is reported once, attributed to the most durable source (config, then grant, then claim)',
  async (t) => {
    t.strictSame(
      brief(
        effectiveRoles({
          principal: 'root',
          configAdmins: ['root'],
          grants: [grant(1, 'root', 'admin')],
          claimRoles: [claimRole('admin')],
        }),
      ),
      [{ role: 'admin', marketplace: null, source: 'config' }],
      'config admin also granted and claimed: config',
    );
    t.strictSame(
      brief(
        effectiveRoles({
          principal: 'bob',
          configAdmins: ['root'],
          grants: [grant(1, 'bob', 'approver', 'acme', 3)],
          claimRoles: [claimRole('approver', 'acme')],
        }),
      ),
      [{ role: 'approver', marketplace: 'acme', source: 'grant' }],
      'granted and claimed approver on the same marketplace: grant',
    );
    t.strictSame(
      brief(
        effectiveRoles({
          principal: 'bob',
          configAdmins: [],
          grants: [],
          claimRoles: [claimRole('approver', 'acme'), claimRole('approver', 'acme')],
        }),
      ),
      [{ role: 'approver', marketplace: 'acme', source: 'claim' }],
      'claimed twice: once',
    );
    t.strictSame(
      brief(
        effectiveRoles({
          principal: 'bob',
          configAdmins: [],
          grants: [grant(1, 'bob', 'approver', 'acme', 3)],
          claimRoles: [claimRole('approver', 'tools')],
        }),
      ),
      [
        { role: 'approver', marketplace: 'acme', source: 'grant' },
        { role: 'approver', marketplace: 'tools', source: 'claim' },
      ],
      'approver of two marketplaces: two roles',
    );
    t.strictSame(
      brief(
        effectiveRoles({
          principal: 'bob',
          configAdmins: [],
          grants: [grant(2, 'bob', 'auditor')],
          claimRoles: [claimRole('admin')],
        }),
      ),
      [
        { role: 'admin', marketplace: null, source: 'claim' },
        { role: 'auditor', marketplace: null, source: 'grant' },
      ],
      'different roles are kept apart',
    );
  },
);

t.test("only the principal's own grants and the configured admin list count", async (t) => {
  const roles = effectiveRoles({
    principal: 'bob',
    configAdmins: ['root', 'bobby'],
    grants: [grant(1, 'root', 'admin'), grant(2, 'bobby', 'auditor'), grant(3, 'bob ', 'auditor')],
    claimRoles: [],
  });
  t.strictSame(roles, [], 'nothing of root, bobby or a differently spelled principal');
  t.notOk(
    isAdmin(effectiveRoles({ principal: 'Root', configAdmins: ['root'], grants: [], claimRoles: [] })),
    'the admin list compares exactly',
  );
});

t.test(
  'approver: matched by marketplace id for grants (a re-registered name inherits nothing) and by name for claims',
  async (t) => {
    const acme = { id: 3, name: 'acme' };
    const reborn = { id: 8, name: 'acme' };
    const granted: RoleAssignment[] = [{ role: 'approver', marketplace: 'acme', marketplaceId: 3, source: 'grant' }];
    t.ok(approvesFor(granted, acme), 'the granted marketplace');
    t.notOk(approvesFor(granted, reborn), 'a new marketplace under the same name');
    t.notOk(approvesFor(granted, { id: 4, name: 'tools' }), 'another marketplace');
    const claimed = [claimRole('approver', 'acme')];
    t.ok(approvesFor(claimed, acme), 'a claim by name');
    t.ok(approvesFor(claimed, reborn), 'a claim by name, whatever the id');
    t.notOk(approvesFor(claimed, { id: 3, name: 'tools' }), 'a claim for another name');
    t.ok(approvesFor([claimRole('admin')], { id: 99, name: 'anything' }), 'spec, Roles: or admin');
    t.notOk(approvesFor([claimRole('auditor')], acme), 'an auditor approves nothing');
    t.notOk(approvesFor([], acme), 'no roles');
  },
);

// A grant on a removed marketplace is dropped before effectiveRoles (roles.queries.ts grantsOf keeps only
// grants whose marketplace is live), so it cannot shadow a claim role on the re-registered name.
t.test('with the stale grant dropped, a claim approver approves the re-registered marketplace', async (t) => {
  t.ok(
    approvesFor(
      effectiveRoles({ principal: 'bob', configAdmins: [], grants: [], claimRoles: [claimRole('approver', 'acme')] }),
      { id: 8, name: 'acme' },
    ),
    'the claim mapping names acme, and acme is now marketplace 8',
  );
  const stale = effectiveRoles({
    principal: 'bob',
    configAdmins: [],
    grants: [grant(1, 'bob', 'approver', 'acme', 3)],
    claimRoles: [],
  });
  t.notOk(approvesFor(stale, { id: 8, name: 'acme' }), 'a grant approves only the marketplace it was given for');
});

t.test('admin and auditor predicates', async (t) => {
  t.ok(isAdmin([claimRole('admin')]));
  t.notOk(isAdmin([claimRole('auditor'), claimRole('approver', 'acme')]));
  t.ok(isAuditorOrAdmin([claimRole('auditor')]));
  t.ok(isAuditorOrAdmin([claimRole('admin')]));
  t.notOk(isAuditorOrAdmin([claimRole('approver', 'acme')]));
  t.ok(hasRole([claimRole('approver', 'acme')], 'approver'));
  t.notOk(hasRole([], 'admin'));
});

t.test(
  'spec, Machine API: a machine principal gets roles only from the admin list or a grant, never from claims',
  async (t) => {
    const grants = new Map<string, unknown[]>([
      [
        'ci-bot',
        [
          {
            id: 4n,
            principal: 'ci-bot',
            role: 'auditor',
            marketplace: null,
            marketplace_id: null,
            granted_by: 'root',
            granted_at: '2026-01-01T00:00:00.000Z',
          },
        ],
      ],
    ]);
    // grantsOf(pool, principal) is the only query rolesOf makes.
    const pool = { any: async (query: { values: readonly unknown[] }) => grants.get(String(query.values[0])) ?? [] };
    const deps = {
      pool,
      access: {
        configAdmins: ['cfg-bot'],
        claimMappings: mappings,
        devInsecureAuth: false,
        sessionTtlMs: 1,
        maxTtlMs: null,
      },
    } as unknown as HttpDeps;
    const caller = (principal: string, actorType: 'human' | 'machine'): Caller => ({
      via: actorType === 'machine' ? 'machine' : 'dev',
      principal,
      actorType,
      credentialId: actorType === 'machine' ? 1 : null,
      apiScopes: [],
      claims: { groups: ['platform'] },
      claimsTruncated: false,
      sessionId: null,
    });
    t.strictSame(
      brief(await rolesOf(deps, caller('ci-bot', 'human'))),
      [
        { role: 'admin', marketplace: null, source: 'claim' },
        { role: 'auditor', marketplace: null, source: 'grant' },
      ],
      'a person with the same claims gets the claim role',
    );
    t.strictSame(
      brief(await rolesOf(deps, caller('ci-bot', 'machine'))),
      [{ role: 'auditor', marketplace: null, source: 'grant' }],
      'a machine: the grant only',
    );
    t.strictSame(
      brief(await rolesOf(deps, caller('cfg-bot', 'machine'))),
      [{ role: 'admin', marketplace: null, source: 'config' }],
      'a machine in the admin list',
    );
  },
);
