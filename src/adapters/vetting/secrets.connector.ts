import { extname } from 'node:path';
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import {
  fileNotScanned,
  locationOf,
  type Finding,
  type ScanFile,
  type ScanInput,
  type ScanReport,
  type Severity,
} from '../../domain/kernel/findings.ts';
import type { Connector } from './connector.ts';
import { allowMarkerAt, isDocumentation, placeholderReason } from './secrets-context.ts';
import { rulesFor } from './secrets-gates.ts';
import { notIssuedReason, testPathReason } from './secrets-values.ts';

// secretlint profiles every rule on every file into the process-wide performance timeline unless told
// not to: in a long-running gateway that is an unbounded memory growth (and a slower scan).
secretLintProfiler.setEnabled(false);

// The types come from @secretlint/types, which is not a direct dependency: derived from lintSource instead.
type SecretLintCoreConfig = Parameters<typeof lintSource>[0]['options']['config'];
type SecretLintCoreResultMessage = Awaited<ReturnType<typeof lintSource>>['messages'][number];

// The preset's rules are listed one by one, without filter-comments: that rule honours
// `secretlint-disable` comments, and a plugin author must not be able to silence the gateway from inside
// the tree (exceptions are the gateway's waivers). A one-line marker (`gitleaks:allow`, …) only lowers a
// match to a visible LOW finding (findingOf); a block `secretlint-disable` does nothing. Disabling it through the preset's own `rules` option
// does not work in @secretlint/core 13 (rules registered by a preset ignore `disabled`).
const rules: SecretLintCoreConfig['rules'] = recommended
  .filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments')
  .map((rule) => ({ id: rule.meta.id, rule }));

// Each file is linted with only the rules that can report in it (secrets-gates.ts), a file where none can
// not at all; one config per set of rules, kept for every later file and scan (secretlint builds its rule
// instances from it per source).
const configs = new Map<string, SecretLintCoreConfig>();
const configOf = (subset: SecretLintCoreConfig['rules']): SecretLintCoreConfig => {
  const key = subset.map((rule) => rule.id).join(' ');
  let config = configs.get(key);
  if (config === undefined) {
    config = { rules: subset };
    configs.set(key, config);
  }
  return config;
};

/** `@secretlint/secretlint-rule-aws` → `aws`: the stable part of a finding id (`secrets-aws`). */
const shortRuleName = (ruleId: string): string =>
  ruleId
    .replace(/^@secretlint\/secretlint-rule-/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'unknown';

/**
 * What kind of credential a message is about, never the credential. Every recommended rule words its
 * message "found <kind>: <value>" (some "found <kind>(<type>): <value>"); the value comes after the
 * colon and is masked anyway (maskSecrets), and a masked parenthesis is dropped. Anything unexpected
 * falls back to the message id ("AWSSecretAccessKey"), which is a constant of the rule.
 */
function kindOf(message: SecretLintCoreResultMessage): string {
  const kind = (message.message.split(':')[0] ?? '')
    .replace(/\([^)]*\*[^)]*\)/g, '')
    .replace(/^found\s+/i, '')
    .trim();
  return /^[\w .'()/-]{1,80}$/.test(kind) && !kind.includes('*') ? kind : message.messageId;
}

const severityOf = (rule: string): Severity => (rule === 'privatekey' ? 'CRITICAL' : 'HIGH');

/**
 * One secretlint match as a finding. An inline allow marker of a real secret scanner on the line
 * (`gitleaks:allow`, `secretlint-disable-line`, `pragma: allowlist secret`, …), an obvious placeholder in
 * documentation (`user:password@localhost`, `testuser:testpass@postgres`, `example.com`, `xxxx`,
 * `<your-token>`), an obviously made-up value in a test file (`xoxb-test-token`, `T00/B00/xxx`,
 * `user:pass@example.com`) or a value not of its issuer's format (a hex digest under Stripe's `sk_test_`)
 * makes it LOW, under its own rule id and naming the rule it would have been, so it stays on the report
 * without blocking. A real-looking value blocks wherever it is.
 */
function findingOf(file: ScanFile, lines: () => readonly string[], message: SecretLintCoreResultMessage): Finding {
  const rule = shortRuleName(message.ruleId);
  const line = message.loc.start.line;
  const location = locationOf(file.path, line);
  const what = `possible ${kindOf(message)} (secretlint rule ${rule}, ${message.messageId})`;
  const would = `secrets-${rule} ${severityOf(rule)}`;
  const marker = allowMarkerAt(lines(), line);
  if (marker !== null)
    return {
      id: 'secrets-allowlisted',
      severity: 'LOW',
      location,
      message: `${what} on a line the author marked \`${marker.marker}\` (${marker.tool}): LOW instead of ${would}; the value is not shown`,
    };
  const value = (file.text ?? '').slice(message.range[0], message.range[1]);
  const placeholder = isDocumentation(file.path) ? placeholderReason(value, 'docs') : null;
  if (placeholder !== null)
    return {
      id: 'secrets-placeholder',
      severity: 'LOW',
      location,
      message: `${what} in a documentation or template file, taken for an example: ${placeholder}; outside documentation it would be ${would}`,
    };
  const unissued = notIssuedReason(rule, value);
  if (unissued !== null)
    return {
      id: 'secrets-not-issued',
      severity: 'LOW',
      location,
      message: `${what}, not of the issuer's format: ${unissued}; a key of that format would be ${would}`,
    };
  // A private key is judged by no test value (any PEM block is random text): it stays CRITICAL in tests too.
  const test = rule === 'privatekey' ? null : testPathReason(file.path);
  const madeUp = test === null ? null : placeholderReason(value, 'test');
  if (madeUp !== null)
    return {
      id: 'secrets-test-value',
      severity: 'LOW',
      location,
      message: `${what} in a test file (${test!}), taken for a test value: ${madeUp}; outside tests, or with a real-looking value, it would be ${would}`,
    };
  return { id: `secrets-${rule}`, severity: severityOf(rule), location, message: `${what}; the value is not shown` };
}

/** Lets timers (the chain's timeout) and I/O run between files: secretlint never really waits. */
const yieldEvery = 20; // ms
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The secrets report over a tree; `signal` stops it between files. */
export async function scanSecrets(input: ScanInput, signal?: AbortSignal): Promise<ScanReport> {
  const findings: Finding[] = [];
  let scanned = 0;
  let binary = 0;
  let oversized = 0;
  let lastBreath = performance.now();
  for (const file of input.files) {
    signal?.throwIfAborted();
    if (performance.now() - lastBreath > yieldEvery) {
      await breathe();
      lastBreath = performance.now();
    }
    if (file.oversized) {
      findings.push(fileNotScanned(file, input.maxFileBytes));
      oversized += 1;
      continue;
    }
    if (file.text === null) {
      binary += 1;
      continue;
    }
    // The extension is what the GCP rule reads to know a service-account key file (`.json`).
    const source = { content: file.text, filePath: file.path, ext: extname(file.path), contentType: 'text' } as const;
    scanned += 1;
    const subset = rulesFor(rules, source);
    if (subset.length === 0) continue;
    const result = await lintSource({
      source,
      options: { config: configOf(subset), maskSecrets: true, noPhysicFilePath: true },
    });
    let split: readonly string[] | null = null;
    const lines = () => (split ??= (file.text ?? '').split(/\r?\n/));
    for (const message of result.messages) findings.push(findingOf(file, lines, message));
  }
  const skipped = [
    binary > 0 ? `${binary} binary skipped` : '',
    oversized > 0 ? `${oversized} over the size limit` : '',
  ].filter((part) => part !== '');
  return {
    findings,
    detail: `${scanned.toLocaleString('en-US')} file${scanned === 1 ? '' : 's'} scanned${skipped.length > 0 ? ` (${skipped.join(', ')})` : ''}`,
  };
}

/** The connector on the calling thread (the chain runs it in a vetting worker: worker-connectors.ts). */
export const secretsConnector: Connector = {
  name: 'secrets',
  description:
    "Credentials in text files (secretlint's recommended rules): cloud keys, tokens, private keys, connection strings; allow-marked lines, placeholders in documentation, made-up values in tests and values not of the issuer's format are LOW",
  scan: (input, _subject, signal) => scanSecrets(input, signal),
};
