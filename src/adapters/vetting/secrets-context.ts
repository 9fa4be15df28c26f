// What the text around a secretlint match says about it (docs/vetting.md): an inline allow marker the
// author put on the line, or a value that is obviously a placeholder in documentation or a made-up value in a
// test file (secrets-values.ts). Each turns the finding into a LOW one that stays on the report
// (secrets.connector.ts); none ever quotes the value.
import { exampleCredentialReason, isServiceHost, madeUpReason } from './secrets-values.ts';

/** An allow marker of a real secret scanner, and the tool that defines it. */
export type AllowMarker = Readonly<{ marker: string; tool: string }>;

type MarkerRule = Readonly<{ pattern: RegExp; marker: string; tool: string }>;

// Markers that speak about secrets only. A bare `nosec` (bandit, gosec) or `noqa` (flake8, ruff) silences
// every check of a general linter, so it says nothing about a credential: only the codes of their
// hard-coded credential checks count (bandit B105-B107, gosec G101, ruff/flake8-bandit S105-S107).
const sameLine: readonly MarkerRule[] = [
  { pattern: /gitleaks:allow\b/i, marker: 'gitleaks:allow', tool: 'gitleaks' },
  { pattern: /secretlint-disable-line\b/i, marker: 'secretlint-disable-line', tool: 'secretlint' },
  { pattern: /pragma:\s?allowlist[ -]secret\b/i, marker: 'pragma: allowlist secret', tool: 'detect-secrets' },
  { pattern: /#\s*nosec\b[\s:]*(?:[BG]\d{3}[\s,]*)*\b(B10[567]|G101)\b/i, marker: 'nosec', tool: 'bandit/gosec' },
  { pattern: /\bnoqa\s*:\s*(?:[A-Z]+\d+[\s,]*)*\bS10[567]\b/i, marker: 'noqa: S105-S107', tool: 'ruff/flake8-bandit' },
];
const previousLine: readonly MarkerRule[] = [
  { pattern: /secretlint-disable-next-line\b/i, marker: 'secretlint-disable-next-line', tool: 'secretlint' },
  {
    pattern: /pragma:\s?allowlist[ -]nextline[ -]secret\b/i,
    marker: 'pragma: allowlist nextline secret',
    tool: 'detect-secrets',
  },
];

/** The allow marker that covers line `line` (from 1): on the line itself, or a next-line marker just above. */
export function allowMarkerAt(lines: readonly string[], line: number): AllowMarker | null {
  const here = lines[line - 1] ?? '';
  const above = lines[line - 2] ?? '';
  const found =
    sameLine.find((rule) => rule.pattern.test(here)) ?? previousLine.find((rule) => rule.pattern.test(above));
  return found === undefined ? null : { marker: found.marker, tool: found.tool };
}

// Documentation, and the templates a repository ships for people to copy (.env.example, config.sample.json).
const docExtension = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;
const templateName = /(?:^|[./_-])(?:example|examples|sample|template|dist|tmpl)(?:\.[^/]*)?$/i;

/** Documentation or a template: where an example credential is expected and a placeholder is not a leak. */
export function isDocumentation(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return docExtension.test(name) || templateName.test(name);
}

const uri = /^[a-z][a-z0-9+.-]*:\/\/(?<user>[^:@/\s]*):(?<password>[^@/\s]*)@(?<host>\[[^\]]*\]|[^/\s?:#]+)/i;
const localHost = /^(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host\.docker\.internal)$/i;
// RFC 2606 and 6761 reserve these names for documentation and testing.
const reservedHost = /(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost)$/i;
const placeholderHost = /^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|your[-_]?host(?:name)?|hostname)$/i;

const placeholders: ReadonlyArray<readonly [RegExp, string]> = [
  [/x{4,}/i, 'a run of x (xxxx)'],
  [/<[^<>\s][^<>]{0,60}>/, 'an <angle-bracket> placeholder'],
  [/\[[A-Z][A-Z0-9_-]{1,40}\]/, 'a [BRACKETED] placeholder'],
  [/\$\{[^}]{1,60}\}|\{\{[^}]{1,60}\}\}|%[A-Z_]{2,40}%/, 'a template variable'],
  [/\.{3}|…/, 'elided (...)'],
  [/\*{3,}/, 'masked (***)'],
  [
    /your[_-]?(?:api[_-]?)?(?:key|token|secret|password|pass|pwd|user(?:name)?)|[_-]here\b|changeme|change[_-]me|replace[_-]?(?:me|this|with)|placeholder|redacted|dummy|insert[_-]?(?:your|key|token)/i,
    'a placeholder word',
  ],
  [/0123456789|123456789|abcdefghij/i, 'a counting sequence'],
];

/** `xxxxxxxx`, `00000000`: a segment of 8 or more of one repeated character. */
const repeated = (value: string): boolean =>
  value.split(/[^A-Za-z0-9]+/).some((segment) => segment.length >= 8 && /^(.)\1+$/.test(segment));

function valueReason(value: string): string | null {
  if (repeated(value)) return 'the value is one repeated character';
  const hit = placeholders.find(([pattern]) => pattern.test(value));
  return hit === undefined ? null : `the value is ${hit[1]}`;
}

/**
 * Why a matched value is an obvious placeholder or example (readable, never quoting the value), or null when
 * it looks real. A credential URL is an example when its host is local, reserved for documentation or (in
 * documentation only: `where` is 'docs') a service name on a container network (`postgres`, `test-db`), or
 * when its user and password are example words (`testuser:testpass`, `user:pass`, `admin:admin`) or a
 * placeholder; any other value when it is xxxx, <your-token>, [PASSWORD], ${VAR}, ..., changeme, one repeated character,
 * or made up (a marker word, a counting sequence, too little entropy: secrets-values.ts).
 */
export function placeholderReason(value: string, where: 'docs' | 'test'): string | null {
  const url = uri.exec(value);
  if (url?.groups !== undefined) {
    const { user = '', password = '', host = '' } = url.groups;
    if (localHost.test(host)) return `the host is ${host.toLowerCase()}, a local example`;
    if (reservedHost.test(host)) return `the host is ${host.toLowerCase()}, a name reserved for documentation`;
    if (placeholderHost.test(host)) return 'the host is a placeholder';
    if (where === 'docs' && isServiceHost(host))
      return `the host is ${host.toLowerCase()}, a service name on a container network`;
    const reason = valueReason(password)?.replace(/^the value/, 'the password');
    return reason ?? exampleCredentialReason(user, password);
  }
  return valueReason(value) ?? madeUpReason(value);
}
