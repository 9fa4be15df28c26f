import t from 'tap';
import { secretsConnector } from '../../../../src/adapters/vetting/secrets.connector.ts';
import { exampleCredentialReason } from '../../../../src/adapters/vetting/secrets-values.ts';
import { scanInput, type FileContent } from '../../../support/scan-input.ts';
import { explain, loadCorpus, scoreCase } from '../../../support/vetting-corpus.ts';

const subject = { snapshotId: 1, marketplace: 'acme', sha: 'a'.repeat(40) };
const scan = (files: Record<string, FileContent>, options: Parameters<typeof scanInput>[1] = {}) =>
  secretsConnector.scan(scanInput(files, options), subject, new AbortController().signal);

// Planted, fake credentials, assembled at run time so this file does not itself look like a leak.
const awsSecret = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYZ9q8w7e6r5t4y3u2i1'].join('/').slice(0, 40);
const githubToken = `ghp_${'Zq3x9Lm2Pw7Rt5Vn8Kd4Hs6Jf1Gb0Yc3Ua9E'}`;
const privateKeyBody = [
  'MIIEowIBAAKCAQEAx4UbaDzY5gvAHw0dPmfLkT3RnQ8Ee1wKjV2bXoG7sZiN9cYhU6',
  'JpQvW3eR5tY7uI9oP1aS3dF5gH7jK9lZ2xC4vB6nM8qW0eR2tY4uI6oP8aS0dF2g',
];
const privateKey = [
  `-----BEGIN RSA ${'PRIVATE'} KEY-----`,
  ...privateKeyBody,
  `-----END RSA ${'PRIVATE'} KEY-----`,
].join('\n');
const planted = [awsSecret, githubToken, ...privateKeyBody];

const files = {
  'plugins/a/config.env': `# settings\nREGION=eu-west-1\naws_secret_access_key = ${awsSecret}\n`,
  'plugins/b/scripts/deploy.sh': `#!/bin/sh\nset -e\n\n\n# push the release\ncurl -H "Authorization: token ${githubToken}" https://api.github.com/repos/acme/x\n`,
  'plugins/c/skills/ssh/SKILL.md': `---\nname: ssh\n---\n\nUse this key:\n\n\`\`\`\n${privateKey}\n\`\`\`\n`,
  'README.md': '# Acme\n\nSet `GITHUB_TOKEN` in your environment; never commit it.\n',
};

t.test('planted credentials are found at their exact line, by stable rule id', async (t) => {
  const result = await scan(files);
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['secrets-aws', 'HIGH', 'plugins/a/config.env:3'],
      ['secrets-github', 'HIGH', 'plugins/b/scripts/deploy.sh:6'],
      ['secrets-privatekey', 'CRITICAL', 'plugins/c/skills/ssh/SKILL.md:8'],
    ],
  );
  t.match(result.findings[0]!.message, /AWS Secret Access Key.*secretlint rule aws/);
  t.match(result.findings[1]!.message, /GitHub Token.*secretlint rule github/);
  t.match(result.findings[2]!.message, /private key.*secretlint rule privatekey/);
  t.equal(result.detail, '4 files scanned');
});

t.test('no finding carries the secret or a piece of it', async (t) => {
  const result = await scan(files);
  const text = JSON.stringify(result);
  for (const secret of planted) {
    for (let i = 0; i + 8 <= secret.length; i += 1) {
      if (text.includes(secret.slice(i, i + 8))) t.fail(`a finding contains ${secret.slice(i, i + 8)}`);
    }
  }
  t.pass('no 8-character piece of a planted secret in the findings or the detail');
});

t.test('clean files give no findings', async (t) => {
  const result = await scan({
    'README.md': '# Tools\n\nExport AWS_SECRET_ACCESS_KEY before running; see the docs.\n',
    'src/index.ts':
      'const token = process.env.GITHUB_TOKEN ?? "";\nexport const headers = { authorization: `token ${token}` };\n',
    'config.json': JSON.stringify({ aws_secret_access_key: '<your key here>', password: '' }),
    'hooks/hook.sh': '#!/bin/sh\necho "BEGIN PRIVATE KEY is a PEM header"\n',
  });
  t.strictSame(result, { findings: [], detail: '4 files scanned' });
});

t.test('a secretlint-disable comment does not silence the gateway', async (t) => {
  const result = await scan({ 'a.sh': `# secretlint-disable\nexport TOKEN=${githubToken}\n# secretlint-enable\n` });
  t.strictSame(
    result.findings.map((f) => [f.id, f.location]),
    [['secrets-github', 'a.sh:2']],
  );
});

t.test('binary files are skipped; oversized files are file-not-scanned (INFO)', async (t) => {
  const result = await scan(
    {
      'blob.bin': Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`aws_secret_access_key = ${awsSecret}`)]),
      'big.txt': `aws_secret_access_key = ${awsSecret}\n${'x'.repeat(2000)}`,
      'small.txt': 'hello\n',
    },
    { maxFileBytes: 1000 },
  );
  t.strictSame(result.findings, [
    {
      id: 'file-not-scanned',
      severity: 'INFO',
      location: 'big.txt:1',
      message: '2065 bytes, over the 1000-byte scanning limit (gateway.vetting.max-file-bytes); not scanned',
    },
  ]);
  t.equal(result.detail, '1 file scanned (1 binary skipped, 1 over the size limit)');
});

t.test('the abort signal is respected between files', async (t) => {
  const controller = new AbortController();
  controller.abort(new Error('timed out'));
  await t.rejects(secretsConnector.scan(scanInput(files), subject, controller.signal), /timed out/);
});

// How fast it scans is measured by the timings benchmark (bench/timings.ts), not asserted here.
t.test('a 2,000-file marketplace is scanned whole: the one planted credential among 2,001 files', async (t) => {
  const markdown =
    '# Skill\n\nThis skill formats code. Run `npm test` first.\n\n## Steps\n\n1. Read the file.\n2. Format it.\n'.repeat(
      30,
    );
  const code =
    'import { readFile } from "node:fs/promises";\nexport async function load(path) {\n  return JSON.parse(await readFile(path, "utf8"));\n}\n'.repeat(
      60,
    );
  const many: Record<string, string> = {};
  for (let i = 0; i < 2000; i += 1)
    many[`plugins/p${i % 40}/${i % 2 === 0 ? `skills/s${i}/SKILL.md` : `scripts/s${i}.js`}`] =
      i % 2 === 0 ? markdown : code;
  many['plugins/p7/.env'] = `aws_secret_access_key=${awsSecret}\n`;
  const result = await scan(many);
  t.strictSame(
    result.findings.map((f) => f.location),
    ['plugins/p7/.env:1'],
  );
  t.equal(result.detail, '2,001 files scanned');
});

// The secrets connector honours inline allow markers (`gitleaks:allow`,
// `secretlint-disable-line`, `pragma: allowlist secret`), reporting each as a LOW finding so it stays visible.
t.test('an inline allow marker of a secret scanner lowers the match to a visible LOW finding', async (t) => {
  const result = await scan({
    'test/fixtures.ts': [
      `const a = "${githubToken}"; // gitleaks:allow`,
      `const b = "${githubToken}"; // secretlint-disable-line`,
      `b = "${githubToken}"  # pragma: allowlist secret`,
      '// secretlint-disable-next-line',
      `const c = "${githubToken}";`,
      '# pragma: allowlist nextline secret',
      `d = "${githubToken}"`,
      `e = "${githubToken}"  # nosec B105`,
      `f = "${githubToken}"  # noqa: S105`,
      `g = "${githubToken}"  # nosec`,
      `h = "${githubToken}"  # noqa`,
      `i = "${githubToken}"  # noqa: E501`,
    ].join('\n'),
  });
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:1'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:2'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:3'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:5'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:7'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:8'],
      ['secrets-allowlisted', 'LOW', 'test/fixtures.ts:9'],
      ['secrets-github', 'HIGH', 'test/fixtures.ts:10'],
      ['secrets-github', 'HIGH', 'test/fixtures.ts:11'],
      ['secrets-github', 'HIGH', 'test/fixtures.ts:12'],
    ],
    'a bare nosec/noqa or a code of another check silences every linter rule, not a secret: it stays HIGH',
  );
  t.equal(
    result.findings[0]!.message,
    'possible GitHub Token (secretlint rule github, GITHUB_TOKEN) on a line the author marked `gitleaks:allow` (gitleaks): LOW instead of secrets-github HIGH; the value is not shown',
  );
  t.match(result.findings[2]!.message, /`pragma: allowlist secret` \(detect-secrets\)/);
  t.match(result.findings[3]!.message, /`secretlint-disable-next-line` \(secretlint\)/);
  t.notMatch(JSON.stringify(result), /Zq3x9Lm2/, 'the value is never shown');
});

t.test('an allow marker on another line, or a block secretlint-disable, covers nothing', async (t) => {
  const result = await scan({
    'a.sh': `# gitleaks:allow\nexport TOKEN=${githubToken}\n# pragma: allowlist secret\n\nexport T2=${githubToken}\n`,
  });
  t.strictSame(
    result.findings.map((f) => [f.id, f.location]),
    [
      ['secrets-github', 'a.sh:2'],
      ['secrets-github', 'a.sh:5'],
    ],
  );
});

// … and treats obvious placeholders (`user:password@localhost`, `example.com`, `xxxx`) in
// Markdown as LOW.
t.test('obvious placeholders in documentation are LOW, each with a readable reason', async (t) => {
  const lines: Array<[string, RegExp]> = [
    [
      'DATABASE_URL=mongodb://admin:changeme@db.example.com:27017/test',
      /the host is db\.example\.com, a name reserved/,
    ],
    ['mysql -h x mysql://app:Zt8qLmN3vRw2@127.0.0.1:3306/app', /the host is 127.0.0.1, a local example/],
    ['export DATABASE_URL=postgresql://<user>:<password>@<host>:5432/<db>', /the host is a placeholder/],
    ['export DATABASE_URL=postgresql://app:your_password_here@db.acme.io/app', /the password is a placeholder word/],
    ['DATABASE_URL="postgresql://postgres:[PASSWORD]@db.[PROJECT].supabase.co:5432/postgres"', /\[BRACKETED\]/],
    ['GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', /the value is one repeated character/],
    ['SLACK_BOT_TOKEN=xoxb-XXXXXXXXXXXX-XXXXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXX', /one repeated character/],
    ['STRIPE_KEY=sk_live_0000000000000000000000000000', /one repeated character/],
    ['GH_TOKEN=ghp_xxxx9Lm2Pw7Rt5Vn8Kd4Hs6Jf1Gb0Yc3Ua9E', /a run of x \(xxxx\)/],
  ];
  for (const path of ['docs/setup.md', 'README.mdx', 'notes.txt', 'guide.rst', '.env.example', 'config.sample.json']) {
    const result = await scan({ [path]: lines.map(([line]) => line).join('\n') });
    t.strictSame(
      result.findings.map((f) => [f.id, f.severity, f.location]),
      lines.map((_, i) => ['secrets-placeholder', 'LOW', `${path}:${i + 1}`]),
      path,
    );
    lines.forEach(([line, reason], i) => t.match(result.findings[i]!.message, reason, line));
  }
  const [first] = (await scan({ 'README.md': lines[0]![0] })).findings;
  t.equal(
    first!.message,
    'possible MongoDB connection string (secretlint rule database-connection-string, MongoDBConnection) in a documentation or template file, taken for an example: the host is db.example.com, a name reserved for documentation; outside documentation it would be secrets-database-connection-string HIGH',
  );
});

t.test('a real-looking key in documentation stays HIGH; a placeholder outside documentation stays HIGH', async (t) => {
  const result = await scan({
    'README.md': `# Setup\n\nexport GITHUB_TOKEN=${githubToken}\nexport DATABASE_URL=postgresql://app:Xk29fjQ9zAq7@prod-db.acme.io/app\n`,
    '.env.example': `GITHUB_TOKEN=${githubToken}\n`,
    'scripts/seed.sh': 'psql "mongodb://admin:changeme@db.example.com:27017/test"\n',
  });
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['secrets-github', 'HIGH', 'README.md:3'],
      ['secrets-database-connection-string', 'HIGH', 'README.md:4'],
      ['secrets-github', 'HIGH', '.env.example:1'],
      ['secrets-database-connection-string', 'HIGH', 'scripts/seed.sh:1'],
    ],
  );
});

// The labelled corpus; every secrets case scores exactly (no false positive, no miss).
t.test('every case of the secrets corpus scores exactly', async (t) => {
  const cases = loadCorpus().filter((c) => c.connector === 'secrets');
  t.ok(cases.length >= 12, `${cases.length} secrets cases`);
  for (const corpusCase of cases) {
    const score = await scoreCase(corpusCase);
    t.strictSame(explain(score), [], `${corpusCase.id} (${corpusCase.label})`);
    if (corpusCase.label === 'attack') t.equal(score.matched.length, corpusCase.expect.length, corpusCase.id);
  }
});

// Seen on real content: compiled test suites full of `xoxb-test-token` and `T00/B00/xxx` webhooks
// blocked a marketplace. A made-up value in a test file is LOW; a real-looking one in a test file stays HIGH.
const slackWebhook = (team: string, channel: string, secret: string) =>
  `https://hooks.slack.${'com'}/services/${team}/${channel}/${secret}`;
const slackToken = (kind: string, rest: string) => `xox${kind}-${rest}`;

t.test('a made-up value in a test file is LOW (secrets-test-value) with the reason it is made up', async (t) => {
  const lines: Array<[string, RegExp]> = [
    [`const url = "${slackWebhook('T00', 'B00', 'xxx')}";`, /a part of the value is one repeated character/],
    [`const url = "${slackWebhook('T00', 'B00', 'override')}";`, /about \d+ bits of entropy, far below an issued key/],
    [`const bot = "${slackToken('b', 'test-token')}";`, /the value contains the word "test"/],
    [`const err = "Bearer ${slackToken('b', 'my-secret-token')}";`, /the word "secret"/],
    [`const app = "${slackToken('p', 'fake-value')}";`, /the word "fake"/],
    [`const both = "${slackToken('b', '123456789012-abcDEF')}";`, /counting sequence/],
    [`const short = "token=${slackToken('a', '2-abc123def456')}";`, /mostly counting sequences/],
    ['expect(validate("https://user:pass@example.com")).toBe(false);', /the host is example\.com/],
  ];
  const paths = [
    'plugins/p/dist/__tests__/notify.test.js',
    'plugins/p/test/notify.js',
    'plugins/p/tests/notify.js',
    'plugins/p/spec/notify.js',
    'plugins/p/fixtures/notify.js',
    'plugins/p/testdata/notify.js',
    'plugins/p/src/notify.test.ts',
    'plugins/p/src/notify.spec.js',
  ];
  for (const path of paths) {
    const result = await scan({ [path]: lines.map(([line]) => line).join('\n') });
    t.strictSame(
      result.findings.map((f) => [f.id, f.severity, f.location]),
      lines.map((_, i) => ['secrets-test-value', 'LOW', `${path}:${i + 1}`]),
      path,
    );
    lines.forEach(([line, reason], i) => t.match(result.findings[i]!.message, reason, line));
  }
  const [first] = (await scan({ [paths[0]!]: lines[0]![0] })).findings;
  t.equal(
    first!.message,
    'possible Slack Incoming Webhook (secretlint rule slack, IncomingWebhook) in a test file (under __tests__/), taken for a test value: a part of the value is one repeated character (xxx, 000); outside tests, or with a real-looking value, it would be secrets-slack HIGH',
  );
  const outside = await scan({ 'plugins/p/dist/notify.js': lines.map(([line]) => line).join('\n') });
  t.strictSame(
    outside.findings.map((f) => f.severity),
    lines.map(() => 'HIGH'),
    'the same values outside a test file still block: the value alone does not make a test',
  );
});

t.test('a real-looking key in a test file stays HIGH; a private key stays CRITICAL', async (t) => {
  const webhook = slackWebhook('TQ7RZK2M4X', 'BH3W9PN6LD', ['Vr8sKqT2mWz4', 'Lp9XnC3bYh6J'].join(''));
  const bot = slackToken('b', ['284619375028', '9731546820417', 'Qm4TzW8rKp2XvN6bLs9JcH3d'].join('-'));
  const result = await scan({
    'plugins/p/__tests__/smoke.test.js': [
      `const hook = "${webhook}";`,
      `const bot = "${bot}";`,
      `const token = "${githubToken}";`,
      `aws_secret_access_key = "${awsSecret}"`,
    ].join('\n'),
    'plugins/p/test/fixtures/tls/server.key': privateKey,
  });
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['secrets-slack', 'HIGH', 'plugins/p/__tests__/smoke.test.js:1'],
      ['secrets-slack', 'HIGH', 'plugins/p/__tests__/smoke.test.js:2'],
      ['secrets-github', 'HIGH', 'plugins/p/__tests__/smoke.test.js:3'],
      ['secrets-aws', 'HIGH', 'plugins/p/__tests__/smoke.test.js:4'],
      ['secrets-privatekey', 'CRITICAL', 'plugins/p/test/fixtures/tls/server.key:1'],
    ],
  );
  t.notMatch(JSON.stringify(result), /Vr8sKqT2|Qm4TzW8r/, 'the value is never shown');
});

// "Widen placeholders in docs": compose-network hosts and example credentials, as agent docs write them.
t.test(
  'documentation: service-name hosts and example credentials are LOW; a real host and password stay HIGH',
  async (t) => {
    const lines: Array<[string, RegExp]> = [
      ['DATABASE_URL: postgres://ci:Vn82kQpL5xTz@postgres:5432/app_test', /the host is postgres, a service name/],
      ['- DATABASE_URL=postgresql://app:Vn82kQpL5xTz@test-db:5432/app', /the host is test-db, a service name/],
      ['MONGO_URL=mongodb://app:Vn82kQpL5xTz@mongo-1:27017/app', /the host is mongo-1, a service name/],
      [
        '-e DATABASE_URL=postgresql://testuser:testpass@192.168.56.14:5432/testdb',
        /the password contains the word "test"/,
      ],
      ['DATABASE_URL=postgresql://app:pass123@db.acme.io/app', /the password is a generic word/],
      ['curl https://user:pass@api.acme.io/v1/health', /the password is a generic word/],
      [`SLACK_WEBHOOK_URL="${slackWebhook('T00', 'B00', 'xxx')}"`, /one repeated character/],
    ];
    const result = await scan({ 'agents/devops.md': lines.map(([line]) => line).join('\n') });
    t.strictSame(
      result.findings.map((f) => [f.id, f.severity]),
      lines.map(() => ['secrets-placeholder', 'LOW']),
    );
    lines.forEach(([line, reason], i) => t.match(result.findings[i]!.message, reason, line));
    t.equal(exampleCredentialReason('admin', 'admin'), 'the password repeats the user name');
    t.equal(exampleCredentialReason('username', 'password'), 'the password is a generic word (pass, password, admin…)');
    t.equal(exampleCredentialReason('test_user', 'test_pass'), 'the password contains the word "test"');
    t.equal(exampleCredentialReason('app', 'Vn82kQpL5xTz'), null);
    const real = await scan({
      'agents/devops.md': 'DATABASE_URL=postgresql://app:Vn82kQpL5xTz@warehouse.acme.io:5432/app\n',
      'scripts/seed.sh': 'psql "postgres://ci:Vn82kQpL5xTz@postgres:5432/app_test"\n',
    });
    t.strictSame(
      real.findings.map((f) => [f.id, f.severity, f.location]),
      [
        ['secrets-database-connection-string', 'HIGH', 'agents/devops.md:1'],
        ['secrets-database-connection-string', 'HIGH', 'scripts/seed.sh:1'],
      ],
      'a real-looking password on a real host in docs, and a service host outside docs, still block',
    );
  },
);

// On real content (NextSpark's test generator): an application's own API keys spelled `sk_test_` + a SHA-256.
t.test(
  'a Stripe-prefixed hex digest is not a key Stripe issues: LOW; a base62 Stripe key blocks anywhere',
  async (t) => {
    const prefix = ['sk', 'test'].join('_');
    const digest = '62fc9942407698cbe1d637c2ea91b5cf3e3e50b9052c432087a7f06f14173f62';
    const base62 = ['51Q701BxnMha2IdGtVE3NKQfm5pSJvHM', 'Bl2kyLo9fn4fKHSy6zjKiZktf95w134Z'].join('');
    const result = await scan({
      'skills/api/scripts/generate.py': `KEY = '${prefix}_${digest}'\n`,
      'skills/api/scripts/upper.py': `KEY = '${prefix}_${digest.toUpperCase()}'\n`,
      'skills/pay/scripts/session.mjs': `const key = '${prefix}_${base62}';\n`,
      'skills/pay/scripts/live.mjs': `const key = '${['rk', 'live'].join('_')}_${digest.slice(0, 30)}Z';\n`,
    });
    t.strictSame(
      result.findings.map((f) => [f.id, f.severity, f.location]),
      [
        ['secrets-not-issued', 'LOW', 'skills/api/scripts/generate.py:1'],
        ['secrets-stripe', 'HIGH', 'skills/api/scripts/upper.py:1'],
        ['secrets-stripe', 'HIGH', 'skills/pay/scripts/session.mjs:1'],
        ['secrets-stripe', 'HIGH', 'skills/pay/scripts/live.mjs:1'],
      ],
    );
    t.equal(
      result.findings[0]!.message,
      "possible Stripe Test Secret Key (secretlint rule stripe, STRIPE_SECRET_KEY_TEST), not of the issuer's format: its body is lowercase hex digits only, a digest, while Stripe issues keys in base62; a key of that format would be secrets-stripe HIGH",
    );
  },
);

t.test("a GCP service account's key file is found by the GCP rule, which reads .json files only", async (t) => {
  const serviceAccount = JSON.stringify(
    {
      type: 'service_account',
      project_id: 'acme-prod',
      private_key_id: 'b3c1f0d2e4a5968778695a4b3c2d1e0f9a8b7c6d',
      private_key: `${privateKey}\n`,
      client_email: 'deployer@acme-prod.iam.gserviceaccount.com',
    },
    null,
    2,
  );
  const found = await scan({ 'plugins/a/credentials/deployer.json': serviceAccount });
  t.ok(
    found.findings.some((f) => f.id === 'secrets-gcp' && f.location === 'plugins/a/credentials/deployer.json:1'),
    'secrets-gcp at the file',
  );
  t.match(found.findings.find((f) => f.id === 'secrets-gcp')?.message, /GCP Service Account/);
  // The same text in a Markdown file is not a key file for the GCP rule.
  const prose = await scan({ 'plugins/a/docs/deployer.md': serviceAccount });
  t.notOk(prose.findings.some((f) => f.id === 'secrets-gcp'));
});
