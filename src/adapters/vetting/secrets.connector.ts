import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { fileNotScanned, locationOf, type Finding, type Severity } from '../../domain/vetting/findings.ts';
import type { Connector } from './connector.ts';

// secretlint profiles every rule on every file into the process-wide performance timeline unless told
// not to: in a long-running gateway that is an unbounded memory growth (and a slower scan).
secretLintProfiler.setEnabled(false);

// The types come from @secretlint/types, which is not a direct dependency: derived from lintSource instead.
type SecretLintCoreConfig = Parameters<typeof lintSource>[0]['options']['config'];
type SecretLintCoreResultMessage = Awaited<ReturnType<typeof lintSource>>['messages'][number];

// One config for every file and every scan (secretlint builds its rule instances from it per source).
// The preset's rules are listed one by one, without filter-comments: that rule honours
// `secretlint-disable` comments, and a plugin author must not be able to silence the gateway from inside
// the tree (exceptions are the gateway's waivers). Disabling it through the preset's own `rules` option
// does not work in @secretlint/core 13 (rules registered by a preset ignore `disabled`).
const config: SecretLintCoreConfig = {
  rules: recommended
    .filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments')
    .map((rule) => ({ id: rule.meta.id, rule })),
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

/** Lets timers (the chain's timeout) and I/O run between files: secretlint never really waits. */
const yieldEvery = 20; // ms
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export const secretsConnector: Connector = {
  name: 'secrets',
  description:
    "Credentials in text files (secretlint's recommended rules): cloud keys, tokens, private keys, connection strings",
  async scan(input, _subject, signal) {
    const findings: Finding[] = [];
    let scanned = 0;
    let binary = 0;
    let oversized = 0;
    let lastBreath = performance.now();
    for (const file of input.files) {
      signal.throwIfAborted();
      if (file.oversized) {
        findings.push(fileNotScanned(file, input.maxFileBytes));
        oversized += 1;
        continue;
      }
      if (file.text === null) {
        binary += 1;
        continue;
      }
      const result = await lintSource({
        source: { content: file.text, filePath: file.path, contentType: 'text' },
        options: { config, maskSecrets: true, noPhysicFilePath: true },
      });
      scanned += 1;
      for (const message of result.messages) {
        const rule = shortRuleName(message.ruleId);
        findings.push({
          id: `secrets-${rule}`,
          severity: severityOf(rule),
          location: locationOf(file.path, message.loc.start.line),
          message: `possible ${kindOf(message)} (secretlint rule ${rule}, ${message.messageId}); the value is not shown`,
        });
      }
      if (performance.now() - lastBreath > yieldEvery) {
        await breathe();
        lastBreath = performance.now();
      }
    }
    const skipped = [
      binary > 0 ? `${binary} binary skipped` : '',
      oversized > 0 ? `${oversized} over the size limit` : '',
    ].filter((part) => part !== '');
    return {
      findings,
      detail: `${scanned.toLocaleString('en-US')} file${scanned === 1 ? '' : 's'} scanned${skipped.length > 0 ? ` (${skipped.join(', ')})` : ''}`,
    };
  },
};
