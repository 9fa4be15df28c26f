import { GitError } from './git-process.ts';

export type IngestLimits = Readonly<{ timeoutMs: number; maxPackBytes: number; maxObjects: number }>;

export const defaultIngestLimits: IngestLimits = {
  timeoutMs: 300_000,
  maxPackBytes: 1024 * 1024 * 1024,
  maxObjects: 2_000_000,
};

/** Why an upstream could not be read, in three parts: reason, root cause, next step. */
export class UpstreamError extends Error {
  readonly reason: string;
  readonly rootCause: string;
  readonly nextStep: string;
  constructor(reason: string, rootCause: string, nextStep: string) {
    super(`${reason}: ${rootCause}`);
    this.reason = reason;
    this.rootCause = rootCause;
    this.nextStep = nextStep;
    this.name = 'UpstreamError';
  }
}

/**
 * The trust boundary of every git command that talks to a remote. Upstream URLs are only http(s) (the
 * trust boundary checks the scheme); git must not be talked into reading local files or running helpers
 * through a crafted URL or redirect.
 */
export const upstreamSettings: Readonly<Record<string, string>> = {
  'protocol.file.allow': 'never',
  'protocol.ext.allow': 'never',
  'protocol.ssh.allow': 'never',
  'http.followRedirects': 'initial',
  'credential.helper': '',
  'core.askPass': '',
};

/** `upstreamSettings` as `-c key=value` arguments. */
export const upstreamConfig: readonly string[] = Object.entries(upstreamSettings).flatMap(([key, value]) => [
  '-c',
  `${key}=${value}`,
]);

/**
 * `git -C repo fetch` as the gateway runs every fetch: quiet, no tags, no FETCH_HEAD written, submodules
 * never followed; the refspecs and further options follow.
 */
export const quietFetch = (repo: string): string[] => [
  '-C',
  repo,
  'fetch',
  '--quiet',
  '--no-tags',
  '--no-write-fetch-head',
  '--recurse-submodules=no',
];

/** The line of a failed git command that says why (its last fatal or error line), or the error's message. */
export const rootCauseOf = (error: unknown): string => {
  if (!(error instanceof GitError)) return error instanceof Error ? error.message : String(error);
  if (error.timedOut) return error.message;
  const lines = error.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.filter((l) => l.startsWith('fatal:') || l.startsWith('error:')).at(-1) ?? lines.at(-1);
  return line ? line.replace(/^(fatal|error): /, '') : `git exited with code ${error.exitCode ?? 'unknown'}`;
};
