// Unknown keys and bad values fail the whole run before anything is applied, with the file's line
// numbers in the message. "Secrets are never written in the file: a webhook or sink secret is a reference
// (`env:NAME` or `file:/path`), and a marketplace's webhook secret is issued as through the API."
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import {
  estateSummary,
  formatEstateFileErrors,
  parseEstateFile,
  type EstateFileError,
} from '../../../../src/domain/estate/estate-file.ts';

const schemes = ['http', 'https'];

/** The errors of a file that must be refused (fails the test if it is accepted). */
function errorsOf(t: Test, text: string, allowed: readonly string[] = schemes): readonly EstateFileError[] {
  const result = parseEstateFile(text, allowed);
  t.notOk(result.ok, 'the file is refused');
  return result.ok ? [] : result.errors;
}

const lines = (text: string) => text.replace(/^\n/, '');

t.test('the example in docs/estate.md is a valid file declaring every key', async (t) => {
  const page = readFileSync('docs/estate.md', 'utf8');
  const example = /```yaml\n([\s\S]*?)```/.exec(page)?.[1];
  t.ok(example, 'docs/estate.md holds a yaml example');
  const result = parseEstateFile(example ?? '', schemes);
  t.ok(result.ok, result.ok ? 'valid' : formatEstateFileErrors('docs/estate.md', result.errors).join('\n'));
  if (!result.ok) return;
  const { estate } = result;
  t.same(
    estate.marketplaces.map((m) => [m.name, m.origin, m.url, m.ref, m.syncMode, m.pushPolicy]),
    [
      ['acme-tools', 'upstream', 'https://github.com/acme/claude-tools.git', 'main', 'scheduled', null],
      ['partner-plugins', 'upstream', 'https://git.partner.example/plugins.git', null, 'webhook', null],
      ['internal', 'hosted', null, null, null, 'append-only'],
    ],
  );
  t.same(
    estate.grants.map((g) => [g.principal, g.role, g.marketplace]),
    [
      ['release-bot', 'approver', 'acme-tools'],
      ['alice@example.com', 'auditor', null],
    ],
  );
  t.same(estate.webhooks.length, 1);
  t.match(estate.webhooks[0], {
    url: 'https://hooks.example.com/gateway',
    events: ['marketplace.snapshot.approved', 'marketplace.snapshot.revoked'],
    description: 'Release channel',
    secret: { kind: 'env', name: 'GATEWAY_WEBHOOK_SECRET' },
  });
  t.same(
    estate.auditSinks.map((s) => [s.name, s.url, s.secret]),
    [['siem', 'https://siem.example.com/ingest', { kind: 'file', path: '/run/secrets/siem-signing' }]],
  );
  t.ok(
    estate.marketplaces.every((m) => m.at.line > 1),
    'every item keeps its line, for the report',
  );
  t.equal(estateSummary(estate), '3 marketplace(s), 2 grant(s), 1 webhook(s), 1 audit sink(s)');
});

t.test('items carry the line they start on; a webhook without a secret and a sink without one are valid', async (t) => {
  const text = lines(`
grants:
  - principal: ops
    role: admin
webhooks:
  - url: http://hooks.example.test/in
    events: [catalog.rebuilt, catalog.rebuilt]
audit-sinks:
  - name: siem_2
    url: https://siem.example.test/
`);
  const result = parseEstateFile(text, schemes);
  t.ok(result.ok);
  if (!result.ok) return;
  t.same(result.estate.grants[0]?.at, { line: 2 });
  t.same(result.estate.webhooks[0]?.at, { line: 5 });
  t.same(result.estate.webhooks[0]?.events, ['catalog.rebuilt'], 'a kind named twice is subscribed once');
  t.equal(result.estate.webhooks[0]?.secret, null, 'no reference: the gateway issues the secret');
  t.same(result.estate.auditSinks[0]?.at, { line: 8 });
});

t.test('an empty file, and empty lists, declare nothing', async (t) => {
  for (const text of ['', '# nothing yet\n', 'marketplaces:\ngrants: []\n']) {
    t.same(parseEstateFile(text, schemes), {
      ok: true,
      estate: { marketplaces: [], grants: [], webhooks: [], auditSinks: [] },
    });
  }
});

t.test('YAML that does not parse: the line, and not the text yaml would quote', async (t) => {
  const text = 'marketplaces:\n  - name: a\n    url: "https://x/hunter2\n';
  const errors = errorsOf(t, text);
  t.ok(errors.length > 0);
  t.ok(errors.every((e) => e.message.startsWith('not valid YAML: ')));
  t.notOk(JSON.stringify(errors).includes('hunter2'), 'the source line is not echoed');
  const dup = errorsOf(t, 'grants: []\nwebhooks: []\ngrants: []\n');
  t.same(dup, [{ line: 3, message: 'not valid YAML: a key appears twice in one mapping' }]);
  const two = errorsOf(t, 'grants: []\n---\nwebhooks: []\n');
  t.match(two, [{ message: /more than one YAML document/ }]);
});

t.test('the top level is a mapping of the four lists, nothing else', async (t) => {
  t.same(errorsOf(t, '- a\n- b\n'), [
    { line: 1, message: 'the estate file must be a mapping of marketplaces, grants, webhooks, audit-sinks' },
  ]);
  t.same(errorsOf(t, 'grants: []\nroles: []\n'), [
    { line: 2, message: "the estate file: unknown key 'roles'; allowed: marketplaces, grants, webhooks, audit-sinks" },
  ]);
  t.same(errorsOf(t, 'grants: admin\n'), [{ line: 1, message: 'grants must be a list' }]);
  t.same(errorsOf(t, 'grants:\n  - just-a-name\n'), [
    { line: 2, message: 'grant must be a mapping of principal, role, marketplace' },
  ]);
});

t.test('an unknown key is named with its line; a key that looks like a pasted value is not echoed', async (t) => {
  const text = lines(`
audit-sinks:
  - name: siem
    url: https://siem.example.test/
    batchSize: 10
    "ghp_0123456789abcdefghijklmnopqrstuvwxyz0123": x
`);
  t.same(errorsOf(t, text), [
    { line: 4, message: "audit sink: unknown key 'batchSize'; allowed: name, url, secret" },
    { line: 5, message: 'audit sink: unknown key a key; allowed: name, url, secret' },
  ]);
});

t.test('marketplaces: every registration refusal the API makes before reading upstream', async (t) => {
  const text = lines(`
marketplaces:
  - name: Acme
    url: https://x.example.test/a.git
  - url: https://x.example.test/b.git
  - name: c
  - name: d
    origin: hosted
    url: https://x.example.test/d.git
  - name: e
    url: https://x.example.test/e.git
    pushPolicy: append-only
  - name: f
    url: https://x.example.test/f.git
    ref: develop
  - name: g
    url: ftp://x.example.test/g.git
  - name: h
    url: https://deploy:hunter2@x.example.test/h.git
  - name: i
    origin: mirrored
    url: not a url
  - name: j
    origin: hosted
    pushPolicy: sometimes
  - name: ${'k'.repeat(64)}
    origin: hosted
`);
  const errors = errorsOf(t, text);
  t.same(
    errors.map((e) => e.line),
    [2, 4, 5, 8, 11, 14, 16, 18, 20, 21, 24, 25],
  );
  t.same(errors, [
    { line: 2, message: "marketplace: 'name' must match ^[a-z0-9][a-z0-9_-]{0,62}$" },
    { line: 4, message: "marketplace: 'name' is required" },
    { line: 5, message: "marketplace: an upstream marketplace needs 'url' (or origin: hosted)" },
    { line: 8, message: 'marketplace: a hosted marketplace has no url: publishers push to it' },
    { line: 11, message: "marketplace: 'pushPolicy' applies only to hosted" },
    {
      line: 14,
      message: "marketplace: 'ref' may only be main: the upstream's default branch is ingested and served as main",
    },
    {
      line: 16,
      message:
        "marketplace: 'url': URL scheme 'ftp' is not allowed; allowed: http, https (gateway.allowed-url-schemes)",
    },
    { line: 18, message: "marketplace: 'url': the url carries user information; credentials never go in URLs" },
    { line: 20, message: "marketplace: 'origin' must be one of upstream, hosted" },
    {
      line: 21,
      message: "marketplace: 'url': the url cannot be parsed; give an absolute URL such as https://host/owner/repo.git",
    },
    { line: 24, message: "marketplace: 'pushPolicy' must be one of append-only, allow-rewrite" },
    { line: 25, message: "marketplace: 'name' must match ^[a-z0-9][a-z0-9_-]{0,62}$" },
  ]);
  t.notOk(JSON.stringify(errors).includes('hunter2'), 'the userinfo is not echoed');
  t.notOk(JSON.stringify(errors).includes('develop'), 'nor the ref given');
});

t.test('the URL schemes are the ones passed in (gateway.allowed-url-schemes)', async (t) => {
  const text = 'marketplaces:\n  - name: a\n    url: http://x.example.test/a.git\n';
  t.ok(parseEstateFile(text, ['http']).ok);
  t.match(errorsOf(t, text, ['https']), [{ line: 3, message: /URL scheme 'http' is not allowed; allowed: https/ }]);
});

t.test('sync is {mode} as PUT .../sync takes it; no schedule and no secret per marketplace', async (t) => {
  const text = lines(`
marketplaces:
  - name: a
    url: https://x.example.test/a.git
    sync: {mode: hourly}
  - name: b
    url: https://x.example.test/b.git
    sync:
      mode: scheduled
      schedule: "*/5 * * * *"
  - name: c
    url: https://x.example.test/c.git
    sync:
      mode: webhook
      secret: env:HOOK_SECRET
  - name: d
    url: https://x.example.test/d.git
    webhookSecret: s3cr3t-value
    syncMode: webhook
  - name: e
    url: https://x.example.test/e.git
    sync: webhook
  - name: f
    url: https://x.example.test/f.git
    sync: {}
`);
  const errors = errorsOf(t, text);
  t.same(errors, [
    { line: 4, message: "marketplace sync: 'mode' must be one of on-demand, scheduled, webhook" },
    {
      line: 9,
      message:
        'marketplace sync: the schedule is gateway.sync.schedule, one for every marketplace in scheduled mode; it is not set per marketplace',
    },
    {
      line: 14,
      message:
        'marketplace sync: the webhook secret is issued by the gateway when the marketplace enters webhook mode, never written here',
    },
    {
      line: 17,
      message:
        "marketplace: a marketplace's webhook secret is issued by the gateway when it enters webhook mode, never written here",
    },
    {
      line: 18,
      message:
        "marketplace: the sync mode is written 'sync: {mode: …}', as PUT /api/v1/marketplaces/{name}/sync takes it",
    },
    { line: 21, message: 'marketplace sync must be a mapping of mode' },
    { line: 24, message: "marketplace sync: 'mode' is required" },
  ]);
  t.notOk(JSON.stringify(errors).includes('s3cr3t'), 'the value written is never echoed');
});

t.test('grants: POST /api/v1/roles refusals that need no database', async (t) => {
  const text = lines(`
grants:
  - principal: "  "
    role: admin
  - principal: bob
    role: superuser
  - principal: bob
    role: approver
  - principal: bob
    role: auditor
    marketplace: acme
  - principal: bob
    role: approver
    marketplace: Not-A-Name
  - role: admin
  - principal: 42
    role: admin
`);
  t.same(errorsOf(t, text), [
    { line: 2, message: "grant: 'principal' must not be empty" },
    { line: 5, message: "grant: 'role' must be one of admin, approver, auditor" },
    { line: 7, message: 'grant: an approver grant names its marketplace' },
    { line: 10, message: 'grant: auditor is a global role and takes no marketplace' },
    { line: 13, message: "grant: 'marketplace' must be a marketplace name (^[a-z0-9][a-z0-9_-]{0,62}$)" },
    { line: 14, message: "grant: 'principal' is required" },
    { line: 15, message: "grant: 'principal' must be a string (quote it)" },
  ]);
});

t.test('webhooks: url, a non-empty list of subscribable kinds, a secret only as a reference', async (t) => {
  const text = lines(`
webhooks:
  - url: https://h.example.test/1
    events: []
  - url: https://h.example.test/2
    events: [marketplace.registered, marketplace.exploded, audit.batch]
  - url: https://h.example.test/3
    events: [catalog.rebuilt]
    secret: whsec_c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1uZXZlci1zaG93
  - url: https://h.example.test/4
    events: [catalog.rebuilt]
    secret: env:lower-case-not-allowed
  - url: https://h.example.test/5
    events: [catalog.rebuilt]
    secret: file:relative/path
  - url: https://h.example.test/6
    events: [catalog.rebuilt]
    secret: {env: NAME}
  - events: [catalog.rebuilt]
  - url: https://h.example.test/8
    events: catalog.rebuilt
  - url: https://h.example.test/9
    events: [catalog.rebuilt, 7]
`);
  const errors = errorsOf(t, text);
  t.same(errors, [
    { line: 3, message: "webhook: 'events' must be a non-empty list" },
    { line: 5, message: 'webhook: events[1] is not an event kind (see GET /api/v1/webhooks/events)' },
    { line: 5, message: "webhook: events[2] 'audit.batch' goes to audit sinks only" },
    {
      line: 8,
      message: "webhook: 'secret': a secret is given as a reference, env:NAME or file:/path, never as its value",
    },
    { line: 11, message: "webhook: 'secret': env: must name a variable ([A-Za-z_][A-Za-z0-9_]*)" },
    { line: 14, message: "webhook: 'secret': file: must name an absolute path" },
    { line: 17, message: "webhook: 'secret' must be a reference, env:NAME or file:/path" },
    { line: 18, message: "webhook: 'url' is required" },
    { line: 20, message: "webhook: 'events' must be a non-empty list" },
    { line: 22, message: "webhook: each entry of 'events' must be a non-empty string" },
  ]);
  t.notOk(JSON.stringify(errors).includes('whsec_'), 'a secret written in the file is never echoed');
});

t.test('audit sinks: the sink name rule, the url rules, the secret reference', async (t) => {
  const text = lines(`
audit-sinks:
  - name: -siem
    url: https://siem.example.test/
  - name: siem
  - name: siem2
    url: https://token@siem.example.test/
    secret: hunter2
`);
  const errors = errorsOf(t, text);
  t.same(errors, [
    { line: 2, message: "audit sink: 'name' must match ^[a-z0-9][a-z0-9_-]*$" },
    { line: 4, message: "audit sink: 'url' is required" },
    { line: 6, message: "audit sink: 'url': the url carries user information; credentials never go in URLs" },
    {
      line: 7,
      message: "audit sink: 'secret': a secret is given as a reference, env:NAME or file:/path, never as its value",
    },
  ]);
  t.notOk(JSON.stringify(errors).includes('hunter2'));
  t.notOk(JSON.stringify(errors).includes('token@'));
});

t.test('two items the reconciler would take for one are refused, naming the first line', async (t) => {
  const text = lines(`
marketplaces:
  - name: acme
    origin: hosted
  - name: acme
    url: https://x.example.test/a.git
grants:
  - principal: bob
    role: approver
    marketplace: acme
  - principal: bob
    role: approver
    marketplace: acme
  - principal: bob
    role: admin
webhooks:
  - url: https://h.example.test/
    events: [catalog.rebuilt]
  - url: https://h.example.test/
    events: [marketplace.registered]
audit-sinks:
  - name: siem
    url: https://a.example.test/
  - name: siem
    url: https://b.example.test/
`);
  t.same(errorsOf(t, text), [
    { line: 4, message: 'marketplace: the name is declared twice (first declared at line 2)' },
    { line: 10, message: 'grant: declared twice (first declared at line 7)' },
    { line: 18, message: 'webhook: a subscriber with this url is declared twice (first declared at line 16)' },
    { line: 23, message: 'audit sink: the name is declared twice (first declared at line 21)' },
  ]);
});

t.test(
  'one bad item fails the whole file, every error reported, as <file>:<line>: <message> in line order',
  async (t) => {
    const text = lines(`
marketplaces:
  - name: good
    url: https://x.example.test/good.git
audit-sinks:
  - name: siem
    url: https://siem.example.test/
    colour: blue
grants:
  - principal: bob
    role: root
`);
    const result = parseEstateFile(text, schemes);
    t.same(result.ok, false, 'the valid marketplace is not returned: nothing is applied');
    if (result.ok) return;
    t.same(formatEstateFileErrors('estate.yaml', [...result.errors].reverse()), [
      "estate.yaml:7: audit sink: unknown key 'colour'; allowed: name, url, secret",
      "estate.yaml:10: grant: 'role' must be one of admin, approver, auditor",
    ]);
  },
);
