import { readFileSync } from 'node:fs';
import t from 'tap';
import type { InventoryPlugin } from '../../../../src/domain/plugin/inventory.ts';
import {
  policyTypes,
  policyVariables,
  policyVariablesReference,
  policyVariableTypes,
  type PolicyInputs,
} from '../../../../src/domain/policy/variables.ts';

const sha = 'a'.repeat(40);
const alpha: InventoryPlugin = {
  name: 'alpha',
  description: 'Alpha tools',
  source: './plugins/alpha',
  skills: [{ name: 'review', path: 'plugins/alpha/skills/review' }],
  commands: [{ name: 'ship', path: 'plugins/alpha/commands/ship.md' }],
  agents: [{ name: 'helper', path: 'plugins/alpha/agents/helper.md' }],
  hooks: [
    {
      event: 'PreToolUse',
      matcher: 'Bash',
      type: 'command',
      runs: './hooks/check.sh',
      location: 'plugins/alpha/hooks/hooks.json',
      declaredBy: 'plugin',
    },
  ],
  mcpServers: [{ name: 'db', path: 'plugins/alpha/.mcp.json' }],
  lspServers: [],
};
const inputs = (over: Partial<PolicyInputs> = {}): PolicyInputs => ({
  at: '2025-03-02T12:00:00.000Z',
  snapshot: {
    id: 7,
    sha,
    upstreamSha: sha,
    state: 'held',
    capturedAt: '2025-03-01T12:00:00.000Z',
    ingestedBy: 'alice',
    fileCount: 42,
  },
  marketplace: { name: 'acme', origin: 'upstream', url: 'https://github.com/acme/tools.git' },
  plugins: [alpha],
  findings: [
    {
      connector: 'secrets',
      id: 'aws-access-key',
      severity: 'HIGH',
      location: 'plugins/alpha/x.sh:3',
      message: 'an AWS key',
      waived: true,
    },
  ],
  licenses: [{ spdxId: 'MIT', source: 'file', location: 'LICENSE', declared: null, evaluation: 'OK' }],
  minimumReleaseAgeMs: 86_400_000,
  approver: { principal: 'bob', roles: [{ role: 'approver', marketplace: 'acme' }] },
  ...over,
});

t.test('policyVariables: the plain variables of a realistic snapshot', async (t) => {
  t.strictSame(policyVariables(inputs()), {
    snapshot: {
      id: 7,
      sha,
      upstreamSha: sha,
      state: 'held',
      marketplace: 'acme',
      capturedAt: '2025-03-01T12:00:00.000Z',
      ingestedBy: 'alice',
      files: 42,
      plugins: [
        {
          name: 'alpha',
          description: 'Alpha tools',
          source: './plugins/alpha',
          skills: [{ name: 'review', path: 'plugins/alpha/skills/review' }],
          commands: [{ name: 'ship', path: 'plugins/alpha/commands/ship.md' }],
          agents: [{ name: 'helper', path: 'plugins/alpha/agents/helper.md' }],
          hooks: [
            {
              event: 'PreToolUse',
              matcher: 'Bash',
              type: 'command',
              runs: './hooks/check.sh',
              location: 'plugins/alpha/hooks/hooks.json',
              declaredBy: 'plugin',
            },
          ],
          mcpServers: [{ name: 'db', path: 'plugins/alpha/.mcp.json' }],
          lspServers: [],
        },
      ],
    },
    marketplace: { name: 'acme', origin: 'upstream', url: 'https://github.com/acme/tools.git', forge: 'github' },
    findings: [
      {
        connector: 'secrets',
        id: 'aws-access-key',
        severity: 'HIGH',
        location: 'plugins/alpha/x.sh:3',
        message: 'an AWS key',
        waived: true,
      },
    ],
    licenses: [{ spdxId: 'MIT', source: 'file', location: 'LICENSE', declared: '', evaluation: 'OK' }],
    releaseAge: { seconds: 86_400, minimumSeconds: 86_400 },
    approver: { principal: 'bob', roles: ['approver'] },
  });
});

t.test('no nulls reach a rule: absent strings are empty', async (t) => {
  const vars = policyVariables(
    inputs({
      snapshot: { ...inputs().snapshot, ingestedBy: null },
      marketplace: { name: 'acme', origin: 'hosted', url: null },
      plugins: [{ ...alpha, description: null, hooks: [{ ...alpha.hooks[0]!, matcher: null }] }],
      licenses: [
        {
          spdxId: null,
          source: 'manifest',
          location: '.claude-plugin/plugin.json',
          declared: 'Proprietary',
          evaluation: 'UNKNOWN',
        },
      ],
    }),
  );
  t.equal(vars.snapshot.ingestedBy, '');
  t.equal(vars.snapshot.plugins[0]?.description, '');
  t.equal(vars.snapshot.plugins[0]?.hooks[0]?.matcher, '');
  t.strictSame(vars.marketplace, { name: 'acme', origin: 'hosted', url: '', forge: '' }, 'hosted: no url, no forge');
  t.strictSame(vars.licenses, [
    {
      spdxId: '',
      source: 'manifest',
      location: '.claude-plugin/plugin.json',
      declared: 'Proprietary',
      evaluation: 'UNKNOWN',
    },
  ]);
  const nulls = JSON.stringify(vars).includes('null');
  t.notOk(nulls, 'no null anywhere');
});

t.test('forge: detected from the url, empty when unknown', async (t) => {
  const forge = (url: string) =>
    policyVariables(inputs({ marketplace: { name: 'acme', origin: 'upstream', url } })).marketplace.forge;
  t.equal(forge('https://gitlab.example.com/acme/tools.git'), 'gitlab');
  t.equal(forge('https://git.example.test/acme/tools.git'), 'git', 'another host');
  t.equal(forge('not a url'), '', 'unparsable');
});

t.test('releaseAge: whole seconds to the evaluation instant, never negative', async (t) => {
  const age = (at: string, minimumReleaseAgeMs = 0) => policyVariables(inputs({ at, minimumReleaseAgeMs })).releaseAge;
  t.strictSame(age('2025-03-01T12:00:01.999Z', 1_500), { seconds: 1, minimumSeconds: 1 }, 'floored');
  t.strictSame(
    age('2025-03-01T11:59:00.000Z'),
    { seconds: 0, minimumSeconds: 0 },
    'a capture stamped after the evaluation',
  );
});

t.test('approver.roles: the roles that apply to this marketplace, once each, sorted', async (t) => {
  const roles = policyVariables(
    inputs({
      approver: {
        principal: 'bob',
        roles: [
          { role: 'approver', marketplace: 'acme' },
          { role: 'approver', marketplace: 'other' },
          { role: 'auditor', marketplace: null },
          { role: 'admin', marketplace: null },
          { role: 'approver', marketplace: 'acme' },
        ],
      },
    }),
  ).approver.roles;
  t.strictSame(roles, ['admin', 'approver', 'auditor']);
  t.strictSame(
    policyVariables(inputs({ approver: { principal: 'eve', roles: [{ role: 'approver', marketplace: 'other' }] } }))
      .approver.roles,
    [],
  );
});

t.test('policyVariables copies: the inputs are not shared with the result', async (t) => {
  const given = inputs();
  const vars = policyVariables(given);
  vars.snapshot.plugins[0]!.skills.push({ name: 'x', path: 'y' });
  vars.approver.roles.push('admin');
  t.equal(given.plugins[0]?.skills.length, 1);
  t.equal(given.approver.roles.length, 1);
});

// Every field the schema declares is produced, with a value of the declared kind, and nothing else: the
// CEL adapter registers the schema, so a drift would be a rule that type-checks and fails at run time.
t.test('the builder output matches the declared schema, field for field', async (t) => {
  const types = policyTypes as Readonly<Record<string, Readonly<Record<string, readonly [string, string]>>>>;
  const conforms = (type: string, value: unknown, at: string): void => {
    const element = /^list<(.+)>$/.exec(type)?.[1];
    if (element !== undefined) {
      t.ok(Array.isArray(value), `${at} is a list`);
      if (Array.isArray(value)) {
        t.ok(value.length > 0, `${at} has an element to check`);
        value.forEach((item, i) => conforms(element, item, `${at}[${i}]`));
      }
      return;
    }
    const fields = types[type];
    if (fields !== undefined) {
      t.strictSame(Object.keys(value as object).sort(), Object.keys(fields).sort(), `${at}: the fields of ${type}`);
      for (const [field, [fieldType]] of Object.entries(fields))
        conforms(fieldType, (value as Record<string, unknown>)[field], `${at}.${field}`);
      return;
    }
    if (type === 'int') t.ok(Number.isSafeInteger(value), `${at} is an integer`);
    else if (type === 'timestamp')
      t.ok(typeof value === 'string' && !Number.isNaN(Date.parse(value)), `${at} is an instant`);
    else t.equal(typeof value, type === 'bool' ? 'boolean' : type, `${at} is a ${type}`);
  };
  const vars = policyVariables(
    inputs({ plugins: [{ ...alpha, lspServers: [{ name: 'ts', path: 'plugins/alpha/.lsp.json' }] }] }),
  );
  t.strictSame(Object.keys(vars).sort(), Object.keys(policyVariableTypes).sort(), 'the top-level variables');
  for (const [name, [type]] of Object.entries(policyVariableTypes))
    conforms(type, vars[name as keyof typeof vars], name);
});

t.test('the documentation names every variable, type and field', async (t) => {
  const doc = readFileSync(new URL('../../../../docs/policy-variables.md', import.meta.url), 'utf8');
  for (const [name, [type]] of Object.entries(policyVariableTypes)) {
    t.match(doc, `| \`${name}\` |`, `docs: variable ${name}`);
    t.match(policyVariablesReference, `\`${name}\` (${type})`, `policyVariablesReference: variable ${name}`);
  }
  for (const [type, fields] of Object.entries(policyTypes)) {
    t.match(doc, new RegExp(`^### ${type}\\b`, 'm'), `docs: a section for ${type}`);
    const section = doc.slice(doc.search(new RegExp(`^### ${type}\\b`, 'm'))).split(/\n### /)[0]!;
    for (const [field, [fieldType]] of Object.entries(fields)) {
      t.match(
        section,
        `| \`${field}\` | ${fieldType.replace('<', '&lt;').replace('>', '&gt;')} |`,
        `docs: ${type}.${field} ${fieldType}`,
      );
      t.match(policyVariablesReference, `${field} ${fieldType}`, `policyVariablesReference: ${type}.${field}`);
    }
  }
});
