/**
 * Words for the values the API answers as enums (`CLEAR_WITH_WAIVERS`, `ingest-rejected`, `held`), so a page
 * never shows a raw enum to a person. `humanize` covers any value; the maps below name the few values whose
 * plain reading would mislead or read oddly.
 */

const acronyms: ReadonlySet<string> = new Set([
  'api',
  'ci',
  'http',
  'https',
  'id',
  'json',
  'mcp',
  'ok',
  'oidc',
  'sso',
  'url',
]);

/** "CLEAR_WITH_WAIVERS" → "Clear with waivers", "ingest-rejected" → "Ingest rejected", "mcpServer" → "MCP server". */
export function humanize(value: string): string {
  const words = value
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((word) => word.length > 0)
    .map((word) => (acronyms.has(word.toLowerCase()) ? word.toUpperCase() : word.toLowerCase()));
  const [first, ...rest] = words;
  if (first === undefined) return '';
  const head = acronyms.has(first.toLowerCase()) ? first : first.charAt(0).toUpperCase() + first.slice(1);
  return [head, ...rest].join(' ');
}

/** A label from `labels` when it names the value, otherwise the humanized value. */
export function labelFrom(labels: Readonly<Record<string, string>>, value: string): string {
  return labels[value] ?? humanize(value);
}

/** Snapshot states: `held` is kept in quarantine until a reviewer decides, and says so. */
export const snapshotStateLabels: Readonly<Record<string, string>> = {
  held: 'Held for review',
  approved: 'Approved',
  rejected: 'Rejected',
  revoked: 'Revoked',
};

/** Vetting outcomes, effective or recorded. */
export const vettingOutcomeLabels: Readonly<Record<string, string>> = {
  CLEAR: 'Clear',
  CLEAR_WITH_WAIVERS: 'Clear with waivers',
  BLOCKED: 'Blocked',
};

/** Connector verdicts on one finding or check. */
export const verdictLabels: Readonly<Record<string, string>> = {
  PASS: 'Pass',
  WARN: 'Warning',
  FAIL: 'Fail',
  ERROR: 'Error',
  PENDING: 'Pending',
};

/** What a marketplace amounts to for its users, as the marketplace list shows it. */
export const marketplaceStatusLabels: Readonly<Record<string, string>> = {
  'ingest-failed': 'Ingest failed',
  'ingest-rejected': 'Ingest rejected',
  'awaiting-review': 'Awaiting review',
  served: 'Served',
  'not-served': 'Not served',
  'never-ingested': 'Never ingested',
};

/** What the last ingest attempt came to, as a marketplace's page shows it. */
export const ingestOutcomeLabels: Readonly<Record<string, string>> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  rejected: 'Rejected',
};
