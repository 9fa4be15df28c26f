import { executableSearchPath } from '../system/environment.ts';
import { gitLauncher, type LaunchedGit } from './git-launcher.ts';

export class GitError extends Error {
  readonly exitCode: number | null;
  readonly stderr: string;
  readonly timedOut: boolean;
  constructor(message: string, exitCode: number | null, stderr: string, timedOut: boolean) {
    super(message);
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.timedOut = timedOut;
    this.name = 'GitError';
  }
}

export type GitOptions = Readonly<{
  cwd?: string;
  /** Kill git after this long (bounded work whatever a remote does). */
  timeoutMs?: number;
  /** Refuse more output than this on stdout. */
  maxOutputBytes?: number;
  input?: Buffer | string;
  env?: Readonly<Record<string, string>>;
}>;

// git must never prompt, read the operator's configuration or credentials, or follow a helper.
const baseEnv = (): Record<string, string> => ({
  PATH: executableSearchPath(),
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ASKPASS: '/bin/false',
  SSH_ASKPASS: '/bin/false',
  LC_ALL: 'C',
});

/** Runs `git` with a time limit and an output cap; resolves with stdout, rejects with a GitError. */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await gitStreamed(args, options, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

/**
 * Runs `git` with a time limit and an output cap, handing stdout to `onData` chunk by chunk as it comes
 * (so that a large output is never gathered and copied in one stretch); rejects with a GitError.
 */
export function gitStreamed(
  args: readonly string[],
  options: GitOptions,
  onData: (chunk: Buffer) => void,
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxOutput = options.maxOutputBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    let size = 0;
    let stderr = '';
    let timedOut = false;
    let overflow = false;
    let failed: unknown = null;
    const timer = setTimeout(() => {
      timedOut = true;
      started.kill();
    }, timeoutMs);
    const request = { args, cwd: options.cwd, env: { ...baseEnv(), ...options.env }, input: options.input ?? '' };
    const started = gitLauncher.run(request, {
      stdout: (chunk) => {
        size += chunk.length;
        if (size > maxOutput) {
          overflow = true;
          started.kill();
          return;
        }
        if (failed !== null) return;
        try {
          onData(chunk);
        } catch (error) {
          failed = error; // the reader refused the output: git is stopped, the error given as is
          started.kill();
        }
      },
      stderr: (chunk) => {
        if (stderr.length < 16_384) stderr += chunk.toString();
      },
      close: (code, startError) => {
        clearTimeout(timer);
        if (startError !== undefined)
          return reject(new GitError(`git could not start: ${startError}`, null, '', false));
        if (failed !== null) return reject(failed);
        if (code === 0 && !overflow && !timedOut) return resolve();
        const why = timedOut
          ? `timed out after ${timeoutMs} ms`
          : overflow
            ? `produced more than ${maxOutput} bytes`
            : `exited with ${code}`;
        reject(new GitError(`git ${subcommandOf(args)} ${why}: ${telling(stderr)}`, code, stderr, timedOut));
      },
    });
  });
}

export const gitText = async (args: readonly string[], options: GitOptions = {}): Promise<string> =>
  (await git(args, options)).toString('utf8').trim();

/** A long-running git whose output is streamed (upload-pack); the caller wires the pipes. */
export function spawnGit(
  args: readonly string[],
  options: Readonly<{ cwd?: string; env?: Readonly<Record<string, string>> }> = {},
): LaunchedGit {
  return gitLauncher.spawn({ args, cwd: options.cwd, env: { ...baseEnv(), ...options.env } });
}

/** The subcommand of a git command line (after `-C <dir>` and `-c <key=value>`). */
const subcommandOf = (args: readonly string[]): string => {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-C' || args[i] === '-c') {
      i++;
      continue;
    }
    if (!args[i]!.startsWith('-')) return args[i]!;
  }
  return args[0] ?? '';
};

/** The line of git's stderr that says what went wrong: the first fatal or error line, else the last. */
const telling = (text: string): string => {
  const lines = text
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return (lines.find((line) => /^(fatal|error):/.test(line)) ?? lines.at(-1) ?? '').slice(0, 300);
};
