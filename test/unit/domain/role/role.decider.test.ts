import t from 'tap';
import { roleDecider, type GrantRole, type RoleCommand } from '../../../../src/domain/role/role.decider.ts';
import type { RoleEvent, RoleName } from '../../../../src/domain/role/role.events.ts';
import { at, meta, roleGranted, roleRevoked } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const grant = (
  principal: string,
  role: RoleName,
  marketplace: string | null = null,
  marketplaceId: number | null = marketplace === null ? null : 3,
  grantId = 9,
): GrantRole => ({
  type: 'grant-role',
  data: { grantId, principal, role, marketplace, marketplaceId },
  meta: meta({ principal: 'root', at }),
});
const granted = (grantId: number, principal: string, role: RoleName, marketplace: string | null = null) =>
  roleGranted({ grantId, principal, role, marketplace, marketplaceId: marketplace === null ? null : 3 });
const revokeGrant = (grantId: number): RoleCommand => ({
  type: 'revoke-role',
  data: { grantId },
  meta: meta({ principal: 'root', at }),
});

const decide = (history: readonly RoleEvent[], command: RoleCommand) => spec(roleDecider).given(history).when(command);

t.test('a grant records principal, role, marketplace (name and id), who granted it and when', async (t) => {
  t.strictSame(decide([], grant('bob', 'approver', 'acme', 3)), {
    outcome: 'accepted',
    events: [
      {
        type: 'role-granted',
        data: {
          grantId: 9,
          principal: 'bob',
          role: 'approver',
          marketplace: 'acme',
          marketplaceId: 3,
          grantedBy: 'root',
          grantedAt: at,
        },
      },
    ],
  });
  t.match(decide([], grant('carol', 'admin')), {
    outcome: 'accepted',
    events: [{ data: { role: 'admin', marketplace: null, marketplaceId: null } }],
  });
  t.match(decide([], grant('dave', 'auditor')), {
    outcome: 'accepted',
    events: [{ data: { role: 'auditor', marketplace: null } }],
  });
  t.match(
    decide([], grant('  bob  ', 'auditor')),
    { outcome: 'accepted', events: [{ data: { principal: 'bob' } }] },
    'the principal is stored trimmed',
  );
});

t.test(
  'spec, Roles: 422 for a missing principal, an approver without marketplace, or a global role with one',
  async (t) => {
    const cases: Array<[string, GrantRole]> = [
      ['empty principal', grant('', 'auditor')],
      ['blank principal', grant('   ', 'admin')],
      ['approver without marketplace', grant('bob', 'approver', null)],
      ['admin with a marketplace', grant('bob', 'admin', 'acme', 3)],
      ['auditor with a marketplace', grant('bob', 'auditor', 'acme', 3)],
      ['admin with an unknown marketplace is still the 422, not the 404', grant('bob', 'admin', 'ghost', null)],
    ];
    for (const [label, command] of cases) {
      t.strictSame(decide([], command).events, [], `${label}: nothing recorded`);
      t.match(decide([], command), { outcome: 'refused', rejection: { code: 'invalid-grant' } }, label);
    }
  },
);

t.test('spec, Roles: 404 for an approver grant naming a nonexistent marketplace', async (t) => {
  t.match(decide([], grant('bob', 'approver', 'ghost', null)), {
    outcome: 'refused',
    rejection: { code: 'marketplace-not-found', detail: /'ghost'/ },
    events: [],
  });
});

t.test('spec, Roles: 409 when an identical grant exists', async (t) => {
  const history = [granted(1, 'bob', 'approver', 'acme'), granted(2, 'bob', 'auditor')];
  t.match(decide(history, grant('bob', 'approver', 'acme')), {
    outcome: 'refused',
    rejection: { code: 'grant-exists', detail: /grant 1/ },
    events: [],
  });
  t.match(decide(history, grant('bob', 'auditor')), {
    outcome: 'refused',
    rejection: { code: 'grant-exists', detail: /grant 2/ },
  });
  t.match(
    decide(history, grant(' bob ', 'auditor')),
    { outcome: 'refused', rejection: { code: 'grant-exists' } },
    'the same principal, padded',
  );
  t.match(
    decide(history, grant('bob', 'approver', 'tools', 4)),
    { outcome: 'accepted' },
    'another marketplace is another grant',
  );
  t.match(decide(history, grant('bob', 'admin')), { outcome: 'accepted' }, 'another role is another grant');
  t.match(decide(history, grant('carol', 'auditor')), { outcome: 'accepted' }, 'another principal is another grant');
  t.match(
    decide(
      [...history, roleRevoked({ grantId: 2, role: 'auditor', marketplace: null, marketplaceId: null })],
      grant('bob', 'auditor'),
    ),
    { outcome: 'accepted' },
    'a revoked grant may be given again',
  );
});

t.test('revocation: the grant is copied onto the event; an unknown grant is a 404', async (t) => {
  const history = [granted(1, 'bob', 'approver', 'acme'), granted(2, 'carol', 'admin')];
  t.strictSame(decide(history, revokeGrant(1)), {
    outcome: 'accepted',
    events: [
      {
        type: 'role-revoked',
        data: {
          grantId: 1,
          principal: 'bob',
          role: 'approver',
          marketplace: 'acme',
          marketplaceId: 3,
          revokedBy: 'root',
          revokedAt: at,
        },
      },
    ],
  });
  t.match(
    decide(history, revokeGrant(7)),
    { outcome: 'refused', rejection: { code: 'grant-not-found' }, events: [] },
    'never granted',
  );
  t.match(
    decide([], revokeGrant(1)),
    { outcome: 'refused', rejection: { code: 'grant-not-found' } },
    'no grants at all',
  );
  const afterRevocation = [...history, ...decide(history, revokeGrant(1)).events];
  t.match(
    decide(afterRevocation, revokeGrant(1)),
    { outcome: 'refused', rejection: { code: 'grant-not-found' } },
    'already revoked',
  );
  t.match(decide(afterRevocation, revokeGrant(2)), { outcome: 'accepted' }, 'the other grant is untouched');
});
