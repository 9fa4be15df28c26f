import { fork, type ChildProcess } from 'node:child_process';
import { workerModule } from '../system/worker-slot.ts';

/** What a started git tells: output chunk by chunk, then how it ended (or that it could not start). */
export type GitListener = Readonly<{
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** The exit code (null when killed); `startError` when git could not be started at all. */
  close(code: number | null, startError?: string): void;
}>;

export type GitRequest = Readonly<{
  /** A program of git's own (`git-http-backend`, by its path); git itself when absent. */
  command?: string;
  args: readonly string[];
  cwd: string | undefined;
  env: Record<string, string>;
  input: Buffer | string;
}>;

type Message =
  | { type: 'stdout' | 'stderr'; id: number; chunk: Uint8Array }
  | { type: 'close'; id: number; code: number | null }
  | { type: 'error'; id: number; message: string };

const launcherUrl = workerModule(import.meta.url, 'git-launcher-process');

/**
 * Starts git through the launcher process (git-launcher-process.ts), so that the gateway's own memory is not
 * forked for every short git command (decision 453). One launcher per process, started on first use; it keeps
 * the process alive only while a git runs. When it dies the git commands it ran fail, and the next one starts a
 * new one.
 */
class GitLauncher {
  private child: ChildProcess | null = null;
  private readonly listeners = new Map<number, GitListener>();
  private nextId = 1;

  run(request: GitRequest, listener: GitListener): { kill(): void } {
    const child = this.launcher();
    const id = this.nextId++;
    this.listeners.set(id, listener);
    if (this.listeners.size === 1) child.channel?.ref();
    child.send({ type: 'start', id, ...request });
    return { kill: () => void (this.listeners.has(id) && child.connected && child.send({ type: 'kill', id })) };
  }

  private launcher(): ChildProcess {
    if (this.child !== null) return this.child;
    const child = fork(launcherUrl, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child = child;
    child.unref();
    child.channel?.unref();
    child.on('message', (message: Message) => this.received(message));
    const gone = (why: string) => {
      if (this.child === child) this.child = null;
      const orphans = [...this.listeners.values()];
      this.listeners.clear();
      for (const listener of orphans) listener.close(null, why);
    };
    child.on('error', (error) => gone(`the git launcher failed: ${error.message}`));
    child.on('exit', (code, signal) => gone(`the git launcher exited (${signal ?? code})`));
    return child;
  }

  private received(message: Message): void {
    const listener = this.listeners.get(message.id);
    if (!listener) return;
    if (message.type === 'close' || message.type === 'error') {
      this.listeners.delete(message.id);
      if (this.listeners.size === 0) this.child?.channel?.unref();
      if (message.type === 'close') listener.close(message.code);
      else listener.close(null, message.message);
      return;
    }
    const chunk = Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength);
    if (message.type === 'stdout') listener.stdout(chunk);
    else listener.stderr(chunk);
  }
}

/** The process's launcher: every short git command the gateway runs goes through it. */
export const gitLauncher = new GitLauncher();
