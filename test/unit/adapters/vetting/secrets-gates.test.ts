// The secrets connector lints a file with only the secretlint rules that can report in it (secrets-gates.ts).
// These tests hold the gates to what they promise: the same messages as every rule gives, on one planted
// credential per rule in several settings and on every text file of the test fixtures.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lintSource } from '@secretlint/core';
import { rules as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import t from 'tap';
import { gatedRuleIds, rulesFor, type GateSource } from '../../../../src/adapters/vetting/secrets-gates.ts';

const all = recommended
  .filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments')
  .map((rule) => ({ id: rule.meta.id, rule }));

const lint = async (source: GateSource, rules: typeof all) =>
  rules.length === 0
    ? []
    : (
        await lintSource({
          source: { ...source, contentType: 'text' },
          options: { config: { rules }, maskSecrets: true, noPhysicFilePath: true },
        })
      ).messages;

// Made-up credentials of each rule's shape, assembled at run time so that this file does not itself look like a leak.
let seed = 20_240_601;
const pick = (alphabet: string, n: number): string =>
  Array.from({ length: n }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return alphabet[seed % alphabet.length]!;
  }).join('');
const alnum = (n: number) => pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', n);
const letters = (n: number) => pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', n);
const digits = (n: number) => pick('0123456789', n);
const hex = (n: number) => pick('0123456789abcdef', n);
const opsToken = (): string => {
  // The token is base64 of a JSON object, read up to its `fQ` (the closing brace alone in the last group):
  // the object's length must leave one byte over a multiple of three.
  let json = JSON.stringify({ email: `${letters(10)}@x.lcl`, secretKey: alnum(40) });
  while (json.length % 3 !== 1) json = json.replace('@', 'a@');
  return `ops_${Buffer.from(json).toString('base64')}`;
};
const pem = (): string =>
  [
    `-----BEGIN RSA ${'PRIVATE'} KEY-----`,
    `MIIE${alnum(60)}`,
    alnum(64),
    `${alnum(40)}==`,
    `-----END RSA ${'PRIVATE'} KEY-----`,
  ].join('\n');

/** One credential per rule: the rule id's last part → text, and the file it sits in when that matters. */
const planted: ReadonlyArray<readonly [string, string, string?]> = [
  ['aws', `aws_secret_access_key = ${alnum(40)}`],
  ['aws', `"SecretAccessKey": "${alnum(40)}"`],
  ['npm', `npm_${alnum(36)}`],
  ['npm', `//registry.npmjs.org/:_authToken=${alnum(36)}`, '.npmrc'],
  ['npm', `"url": "https://${alnum(40)}:x-oauth-basic@github.com/acme/x.git"`, 'package.json'],
  ['slack', `xoxb-${digits(12)}-${digits(12)}-${alnum(24)}`],
  ['slack', `https://hooks.slack.com/services/T${alnum(8)}/B${alnum(8)}/${alnum(24)}`],
  ['slack', `HTTPS://HOOKS.SLACK.COM/SERVICES/T${alnum(8)}/B${alnum(8)}/${alnum(24)}`],
  ['basicauth', `https://deploy:${alnum(14)}@registry.acme-corp.io/simple`],
  ['openai', `sk-proj-${alnum(74)}T3BlbkFJ${alnum(74)}`],
  ['openai', `sk-${alnum(20)}T3BlbkFJ${alnum(20)}`],
  ['anthropic', `sk-ant-api03-${alnum(93)}AA`],
  ['groq', `gsk_${alnum(52)}`],
  ['huggingface', `hf_${letters(34)}`],
  ['linear', `lin_api_${alnum(40)}`],
  ['notion', `ntn_${digits(11)}${alnum(35)}`],
  ['privatekey', pem()],
  ['sendgrid', `SG.${alnum(22)}.${alnum(43)}`],
  ['shopify', `shpat_${hex(32)}`],
  ['stripe', `sk_live_${alnum(30)}`],
  ['stripe', `rk_test_${alnum(30)}`],
  ['github', `ghp_${alnum(36)}`],
  ['github', `ghs_${alnum(36)}`],
  ['github', `github_pat_${alnum(82)}`],
  ['github', `ghs_${digits(6)}_${alnum(40)}.${alnum(60)}.${alnum(40)}`],
  ['gitlab', `glpat-${alnum(20)}`],
  ['grafana', `glc_${alnum(40)}`],
  ['grafana', `glsa_${alnum(32)}_${hex(8)}`],
  ['1password', opsToken()],
  ['database-connection-string', `postgres://app:${alnum(16)}@db.acme-corp.io:5432/app`],
  ['database-connection-string', `MONGODB+SRV://app:${alnum(16)}@cluster0.acme-corp.io/app`],
  ['database-connection-string', `jdbc:mysql://app:${alnum(16)}@db.acme-corp.io:3306/app`],
  ['hashicorp-vault', `hvs.${alnum(95)}`],
  ['hashicorp-vault', `hvb.${alnum(140)}`],
  ['hashicorp-vault', `hvr.${alnum(95)}`],
  ['vercel', `vcp_${alnum(24)}`],
  ['databricks', `dapi${hex(32)}`],
  ['docker', `dckr_pat_${alnum(27)}`],
  ['figma', `figd_${alnum(40)}`],
  ['cloudflare', `cfut_${alnum(40)}${hex(8)}`],
  ['tailscale', `tskey-auth-${alnum(12)}-${alnum(30)}`],
];

/** The settings a credential is met in: prose, a shell line, JSON, after a byte-order mark, alone. */
const settings = (text: string, path = 'notes.md'): GateSource[] => [
  { content: `# Setup\n\nUse ${text} to sign in.\n`, filePath: path },
  { content: `#!/bin/sh\nexport TOKEN="${text}"\n`, filePath: path === 'notes.md' ? 'run.sh' : path },
  { content: `{\n  "token": "${text}"\n}\n`, filePath: path === 'notes.md' ? 'config.json' : path },
  { content: `\uFEFF${text}\n`, filePath: path },
  { content: text, filePath: path },
];

t.test('the gates are written for this secretlint version and know every rule of its preset', async (t) => {
  const manifest = JSON.parse(
    readFileSync('node_modules/@secretlint/secretlint-rule-preset-recommend/package.json', 'utf8'),
  ) as { version: string };
  t.equal(manifest.version, '13.0.7', 'on an upgrade, read each rule again and check its gate');
  t.strictSame([...gatedRuleIds].sort(), all.map((rule) => rule.id).sort());
  const covered = new Set(planted.map(([rule]) => `@secretlint/secretlint-rule-${rule}`));
  t.strictSame(
    all.map((rule) => rule.id).filter((id) => !covered.has(id)),
    ['@secretlint/secretlint-rule-gcp'],
    'one credential per rule, but gcp (it reads source.ext, which the connector does not set)',
  );
});

t.test('each planted credential is reported by its rule, and the gated lint reports the same', async (t) => {
  for (const [rule, text, path] of planted) {
    for (const source of settings(text, path)) {
      const everyRule = await lint(source, all);
      t.ok(
        everyRule.some((message) => message.ruleId === `@secretlint/secretlint-rule-${rule}`),
        `${rule} reports its credential in ${source.filePath}`,
      );
      t.strictSame(
        await lint(source, rulesFor(all, source)),
        everyRule,
        `${rule} in ${source.filePath}: same messages`,
      );
    }
  }
});

t.test('the gcp rule looks only at the ext secretlint is given, and its gate with it', async (t) => {
  const account = JSON.stringify({
    type: 'service_account',
    private_key_id: hex(40),
    private_key: `${pem()}\n`,
  });
  const withoutExt = { content: account, filePath: 'sa.json' };
  t.strictSame(await lint(withoutExt, all), await lint(withoutExt, rulesFor(all, withoutExt)));
  const ids = (source: GateSource) => rulesFor(all, source).map((rule) => rule.id);
  t.notOk(ids(withoutExt).includes('@secretlint/secretlint-rule-gcp'), 'no ext: the rule has nothing to do');
  t.ok(ids({ ...withoutExt, ext: '.json' }).includes('@secretlint/secretlint-rule-gcp'), 'ext .json: it runs');
});

t.test('text without any rule piece is handed to no rule; a rule the table does not know always runs', async (t) => {
  const prose = { content: '# Notes\n\nRun the build, then check the output.\n', filePath: 'README.md' };
  t.strictSame(rulesFor(all, prose), []);
  const unknown = [{ id: 'acme-rule' }, ...all];
  t.strictSame(
    rulesFor(unknown, prose).map((rule) => rule.id),
    ['acme-rule'],
  );
});

/** Every text file under a directory. */
function textFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return textFiles(path);
    const content = readFileSync(path);
    return content.subarray(0, 8000).includes(0) ? [] : [path];
  });
}

t.test('gated and ungated lints agree on every text file of the test fixtures', async (t) => {
  const paths = textFiles('test/fixtures');
  t.ok(paths.length > 100, `${paths.length} files`);
  let differing = 0;
  for (const path of paths) {
    const source = { content: readFileSync(path, 'utf8'), filePath: path };
    const everyRule = await lint(source, all);
    const gated = await lint(source, rulesFor(all, source));
    if (JSON.stringify(gated) !== JSON.stringify(everyRule)) {
      differing += 1;
      t.strictSame(gated, everyRule, path);
    }
  }
  t.equal(differing, 0, 'no fixture differs');
});
