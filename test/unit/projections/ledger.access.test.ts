import t from 'tap';
import type { RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { ledgerDrafts } from '../../../src/projections/ledger/ledger.mapping.ts';

const digest = 'f00d'.repeat(16);
const recorded = (type: string, data: unknown, metadata: Partial<RecordedEvent['metadata']> = {}): RecordedEvent => ({
  id: 'e',
  streamId: 's-1',
  revision: 0n,
  position: 42n,
  type,
  data,
  recordedAt: '2026-03-01T10:00:00.123Z',
  metadata: { principal: 'root', actorType: 'human', correlationId: 'c', at: '2026-03-01T10:00:00.000Z', ...metadata },
});

const issued = (overrides: Record<string, unknown> = {}) => ({
  tokenId: 5,
  digest,
  kind: 'personal',
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  scopes: ['acme'],
  pushScopes: [],
  apiScopes: [],
  expiresAt: '2026-04-01T00:00:00.000Z',
  rotatedFrom: null,
  issuedAt: '2026-03-01T10:00:00.000Z',
  issuedBy: 'alice',
  ...overrides,
});
const machineIssued = (overrides: Record<string, unknown> = {}) =>
  issued({
    kind: 'machine',
    owner: 'root',
    principal: 'ci-bot',
    name: 'ci',
    scopes: [],
    apiScopes: ['roles:read', 'audit:read'],
    issuedBy: 'root',
    ...overrides,
  });
const revoked = (overrides: Record<string, unknown> = {}) => ({
  tokenId: 5,
  kind: 'personal',
  owner: 'alice',
  principal: 'alice',
  name: 'laptop',
  cause: 'deleted',
  revokedAt: 'x',
  revokedBy: 'alice',
  ...overrides,
});

const one = (event: RecordedEvent) => {
  const drafts = ledgerDrafts(event);
  if (drafts.length !== 1) throw new Error(`expected one entry, got ${drafts.length}`);
  return drafts[0]!;
};

t.test('spec, Events: machine credential lifecycle entries; the actor is the administrator', async (t) => {
  const created = one(recorded('token-issued', machineIssued()));
  t.match(created, {
    position: 42n,
    source: 'admin',
    principal: 'root',
    actorType: 'human',
    marketplace: '-',
    marketplaceId: null,
    event: 'machine-credential-created',
    ref: null,
    sha: null,
    tokenId: null,
    credential_kind: null,
  });
  t.match(created.detail, /principal=ci-bot/, "the detail names the credential's principal");
  t.equal(one(recorded('token-issued', machineIssued({ rotatedFrom: 4 }))).event, 'machine-credential-rotated');
  t.match(
    one(recorded('token-revoked', revoked({ kind: 'machine', owner: 'root', principal: 'ci-bot', revokedBy: 'root' }))),
    {
      event: 'machine-credential-revoked',
      principal: 'root',
      actorType: 'human',
      source: 'admin',
      detail: /principal=ci-bot/,
    },
  );
});

t.test('personal and session tokens: token-created, token-rotated, token-revoked', async (t) => {
  t.match(one(recorded('token-issued', issued(), { principal: 'alice' })), {
    event: 'token-created',
    principal: 'alice',
    actorType: 'human',
    marketplace: '-',
    tokenId: null,
  });
  t.equal(
    one(recorded('token-issued', issued({ kind: 'session' }), { principal: 'alice' })).event,
    'token-created',
    'a session token',
  );
  t.equal(one(recorded('token-issued', issued({ rotatedFrom: 4 }), { principal: 'alice' })).event, 'token-rotated');
  t.equal(one(recorded('token-revoked', revoked(), { principal: 'alice' })).event, 'token-revoked');
});

t.test('the revocation half of a rotation writes no entry (the rotated entry records it)', async (t) => {
  t.strictSame(ledgerDrafts(recorded('token-revoked', revoked({ cause: 'rotated' }))), []);
  t.strictSame(
    ledgerDrafts(recorded('token-revoked', revoked({ cause: 'rotated', kind: 'machine', principal: 'ci-bot' }))),
    [],
  );
});

t.test("a secret's digest never reaches the ledger", async (t) => {
  for (const data of [issued(), machineIssued(), machineIssued({ rotatedFrom: 4 })]) {
    t.notMatch(one(recorded('token-issued', data)).detail ?? '', digest);
  }
});

t.test('token-used adds no entry (lastUsedAt is not an act)', async (t) => {
  t.strictSame(
    ledgerDrafts(recorded('token-used', { tokenId: 5, usedAt: 'x' }, { actorType: 'machine', credentialId: 5 })),
    [],
  );
});

t.test('role-granted and role-revoked: the marketplace, or - for a global role', async (t) => {
  const grant = {
    grantId: 3,
    principal: 'bob',
    role: 'approver',
    marketplace: 'acme',
    marketplaceId: 7,
    grantedBy: 'root',
    grantedAt: 'x',
  };
  t.match(one(recorded('role-granted', grant)), {
    event: 'role-granted',
    marketplace: 'acme',
    marketplaceId: 7,
    principal: 'root',
    source: 'admin',
    tokenId: null,
  });
  t.match(one(recorded('role-granted', { ...grant, role: 'admin', marketplace: null, marketplaceId: null })), {
    event: 'role-granted',
    marketplace: '-',
    marketplaceId: null,
  });
  const revocation = {
    grantId: 3,
    principal: 'bob',
    role: 'auditor',
    marketplace: null,
    marketplaceId: null,
    revokedBy: 'root',
    revokedAt: 'x',
  };
  t.match(one(recorded('role-revoked', revocation)), {
    event: 'role-revoked',
    marketplace: '-',
    marketplaceId: null,
    principal: 'root',
  });
  t.match(one(recorded('role-revoked', { ...revocation, role: 'approver', marketplace: 'acme', marketplaceId: 7 })), {
    marketplace: 'acme',
    marketplaceId: 7,
  });
  t.match(one(recorded('role-granted', grant)).detail, /bob/, 'the detail names who received the role');
});

t.test('spec, Events: roles-read has detail grants={n}', async (t) => {
  t.match(one(recorded('roles-read', { grants: 3 })), {
    event: 'roles-read',
    detail: 'grants=3',
    marketplace: '-',
    marketplaceId: null,
    source: 'admin',
  });
  t.equal(one(recorded('roles-read', { grants: 0 })).detail, 'grants=0');
});

t.test(
  "spec, Ledger entry: a machine API action carries actorType machine, the credential's principal and its tokenId",
  async (t) => {
    const entry = one(
      recorded('roles-read', { grants: 1 }, { principal: 'ci-bot', actorType: 'machine', credentialId: 12 }),
    );
    t.match(entry, { principal: 'ci-bot', actorType: 'machine', tokenId: 12, source: 'admin', credential_kind: null });
    const human = one(recorded('roles-read', { grants: 1 }, { principal: 'root' }));
    t.match(
      human,
      { principal: 'root', actorType: 'human', tokenId: null },
      'an interactive admin entry has no tokenId',
    );
  },
);
