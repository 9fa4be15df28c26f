import type { Writable } from 'node:stream';
import { spawnGit } from './git-process.ts';
import { PackStartDetector } from './pack-start.ts';

export type UploadPackRun = Readonly<{
  /** The repository served. */
  repo: string;
  version: 0 | 2;
  /** The request body, inflated and already checked (every want advertised). */
  body: Buffer;
  /** Where the answer goes (the response, its status and headers already written). */
  out: Writable;
  /**
   * Runs when the pack is about to start (after the negotiation); no byte of the answer leaves before
   * it resolves. When it rejects, git is killed and `out` destroyed: the client sees a broken fetch.
   */
  beforePack(): Promise<void>;
  /** Told why `beforePack` refused the fetch. */
  refused(error: unknown): void;
  /** Told once, when `out` closes, how many bytes of git's output went to it and whether it ended in full (metrics). */
  sent?(bytes: number, complete: boolean): void;
}>;

/**
 * Streams `git upload-pack --stateless-rpc` for one request: its output is held until the pack starts
 * (pack-start.ts), then `beforePack` must succeed, then the held output and the rest are piped to `out`.
 * A client that goes away takes git with it.
 */
export function streamUploadPack(run: UploadPackRun): void {
  const { out } = run;
  const env = run.version === 2 ? { env: { GIT_PROTOCOL: 'version=2' } } : {};
  const child = spawnGit(['upload-pack', '--stateless-rpc', run.repo], env);
  child.stdin?.on('error', () => {});
  child.stdin?.end(run.body);
  let bytes = 0;
  out.on('close', () => {
    // Closed before it finished: the client went away. Once it finished, git's output has ended and git is
    // ending by itself (its exit may not be known yet): nothing to kill.
    if (!out.writableFinished && child.exitCode === null) child.kill('SIGKILL');
    run.sent?.(bytes, out.writableFinished);
  });
  const write = (part: Buffer) => {
    bytes += part.length;
    out.write(part);
  };
  const detector = new PackStartDetector(run.version);
  const held: Buffer[] = [];
  let starting: Promise<void> | null = null;
  child.stdout?.on('data', (chunk: Buffer) => {
    held.push(chunk);
    if (starting || !detector.feed(chunk)) return;
    child.stdout?.pause();
    starting = run.beforePack().then(
      () => {
        for (const part of held.splice(0)) write(part);
        child.stdout?.removeAllListeners('data');
        child.stdout?.on('data', (chunk: Buffer) => (bytes += chunk.length));
        child.stdout?.pipe(out);
        child.stdout?.resume();
      },
      (error: unknown) => {
        run.refused(error);
        child.kill('SIGKILL');
        out.destroy();
      },
    );
  });
  child.stdout?.on('end', () => {
    if (!starting) {
      for (const part of held.splice(0)) write(part);
      out.end();
    }
  });
  child.on('error', () => out.destroy());
}
