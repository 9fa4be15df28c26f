// gateway.ingest.external-hosts (decision 342): which hosts external plugin sources may name. Pure: the
// configuration check and the ingest read the same patterns the same way.

export const externalHostsKey = 'gateway.ingest.external-hosts';

/**
 * Why `pattern` is no host pattern, or null. A pattern is a host name (`github.com`), `*.` and a host name
 * (`*.example.com`: any name under it, not example.com itself), or an IP address as a URL writes it.
 */
export function hostPatternProblem(pattern: string): string | null {
  const name = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  if (/^\[[0-9a-f:.]+\]$/i.test(pattern)) return null;
  if (
    name.length > 253 ||
    !/^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/i.test(name)
  )
    return `'${pattern}' is not a host name or *.host pattern (write e.g. github.com or *.example.com)`;
  return null;
}

/** Whether `host` (a URL's host name, lower-cased by the URL parser) matches `pattern`. */
export function hostMatches(host: string, pattern: string): boolean {
  const wanted = pattern.toLowerCase();
  const name = host.toLowerCase().replace(/\.$/, '');
  return wanted.startsWith('*.') ? name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1 : name === wanted;
}

/**
 * Why an external plugin source at `url` may not be fetched under `patterns` (empty: any host), or null.
 * A URL that cannot be parsed is left to the trust boundary, which refuses it with its own reason.
 */
export function externalHostRefusal(url: string, patterns: readonly string[]): string | null {
  if (patterns.length === 0) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (patterns.some((pattern) => hostMatches(host, pattern))) return null;
  return `external plugin source host '${host}' is not in ${externalHostsKey}`;
}
