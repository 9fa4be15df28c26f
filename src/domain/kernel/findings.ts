// What a vetting connector reports (docs/vetting.md): verdicts with findings, and the rules that
// turn findings into a verdict and verdicts into an outcome.
// Shared: the plugin readers use its files and locations, vetting reports findings, policy rules read them.

export const severities = ['INFO', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type Severity = (typeof severities)[number];

export const verdictStates = ['PASS', 'WARN', 'FAIL', 'ERROR', 'PENDING'] as const;
export type VerdictState = (typeof verdictStates)[number];

/** One thing a connector found. `id` is the stable rule id waivers name; `location` is `path:line`. */
export type Finding = Readonly<{ id: string; severity: Severity; location: string; message: string }>;

/** A finding blocks approval when it is HIGH or CRITICAL (decision 65). */
export const isBlocking = (finding: Finding): boolean => finding.severity === 'HIGH' || finding.severity === 'CRITICAL';

/** A connector's verdict from its findings: FAIL on a blocking finding, WARN on LOW or MEDIUM, else PASS. */
export function stateOf(findings: readonly Finding[]): VerdictState {
  if (findings.some(isBlocking)) return 'FAIL';
  if (findings.some((finding) => finding.severity === 'LOW' || finding.severity === 'MEDIUM')) return 'WARN';
  return 'PASS';
}

/** `path:line` (line from 1); a finding about a whole file uses line 1. */
export const locationOf = (path: string, line = 1): string => `${path}:${line}`;

/** The path part of a `path:line` location. */
export const pathOfLocation = (location: string): string => location.replace(/:\d+$/, '');

/** A file of the pinned tree as the connectors see it. */
export type ScanFile = Readonly<{
  path: string;
  size: number;
  /** UTF-8 text; null when the file is binary or larger than gateway.vetting.max-file-bytes. */
  text: string | null;
  binary: boolean;
  /** Larger than gateway.vetting.max-file-bytes: not read, reported as file-not-scanned. */
  oversized: boolean;
  /** The tree records it as executable (git mode 100755); absent where the source has no modes. */
  executable?: boolean;
}>;

/** The INFO finding for a file a connector wanted to read but that is over the size limit. */
export const fileNotScanned = (file: ScanFile, maxFileBytes: number): Finding => ({
  id: 'file-not-scanned',
  severity: 'INFO',
  location: locationOf(file.path),
  message: `${file.size} bytes, over the ${maxFileBytes}-byte scanning limit (gateway.vetting.max-file-bytes); not scanned`,
});

/** What every connector is given: the whole pinned tree of one snapshot, and the settings it reads. */
export type ScanInput = Readonly<{
  files: readonly ScanFile[];
  byPath: ReadonlyMap<string, ScanFile>;
  maxFileBytes: number;
  license: Readonly<{ allow: readonly string[]; ban: readonly string[] }>;
}>;

export type ScanReport = Readonly<{
  findings: readonly Finding[];
  /** A short human summary ("3 hooks examined"), or null. */
  detail: string | null;
}>;

/** A pure, synchronous connector over the tree (the built-in ones that need no package). */
export type PureScanner = (input: ScanInput) => ScanReport;
