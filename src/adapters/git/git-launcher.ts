import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workerModule } from '../system/worker-slot.ts';
import { Streamed, type Channel, type LaunchedGit } from './git-launched.ts';

export type { LaunchedGit } from './git-launched.ts';

/** What a started git tells: output chunk by chunk, then how it ended (or that it could not start). */
export type GitListener = Readonly<{
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** The exit code (null when killed); `startError` when git could not be started at all. */
  close(code: number | null, startError?: string, signal?: NodeJS.Signals | null): void;
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
  | { type: 'stdin-ack'; id: number }
  | { type: 'close'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string };

/** A streamed command's listener also hears when git took a chunk of its input. */
type Listener = GitListener & Readonly<{ stdinTaken?(): void }>;

const launcherUrl = workerModule(import.meta.url, 'git-launcher-process');
/**
 * Where streamed commands' stdout connects: a socket file in a directory only this user may enter (0700), so no
 * other user's process can connect and pose as a command's output (an abstract socket would be open to every
 * process on the host). The directory goes when the process exits.
 */
const outputAddress = (): string => {
  const base = tmpdir().length > 80 ? '/tmp' : tmpdir(); // a socket's path is at most 107 bytes
  const dir = mkdtempSync(join(base, 'gateway-git-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'output.sock');
};
const bytes = (chunk: Uint8Array): Buffer => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/**
 * Starts git through the launcher process (git-launcher-process.ts), so that the gateway's own memory is not
 * forked for every git command (decision 453). One launcher per process, started on first use; it keeps the
 * process alive only while a git runs. When it dies the git commands it ran fail, and the next one starts a
 * new one. A streamed command's stdout comes straight from git over a connection to this process's socket, so
 * a pack is not copied through the launcher.
 */
class GitLauncher {
  private child: ChildProcess | null = null;
  private readonly listeners = new Map<number, Listener>();
  /** Streamed commands whose stdout connection has not arrived yet. */
  private readonly awaiting = new Map<number, Streamed>();
  private output: Readonly<{ server: Server; address: string }> | null = null;
  private nextId = 1;
  private readonly channel: Channel = {
    send: (message) => void (this.child?.connected && this.child.send(message)),
  };

  /** A command whose input is known: its output goes to `listener`. */
  run(request: GitRequest, listener: GitListener): { kill(): void } {
    const id = this.started(this.nextId++, { ...request, output: null }, listener);
    return { kill: () => void (this.listeners.has(id) && this.channel.send({ type: 'kill', id, signal: 'SIGKILL' })) };
  }

  /** A command whose input is written as it comes, and whose output is read as a stream. */
  spawn(request: Omit<GitRequest, 'input'>): LaunchedGit {
    const id = this.nextId++;
    const launched = new Streamed(id, this.channel);
    this.awaiting.set(id, launched);
    const listener: Listener = {
      stdout: () => {}, // never: it comes over the connection
      stderr: (chunk) => void launched.stderr.push(chunk),
      close: (code, startError, signal) => {
        if (startError !== undefined) this.awaiting.delete(id);
        launched.closed(code, signal ?? null, startError);
      },
      stdinTaken: () => launched.stdinTaken(),
    };
    this.started(id, { ...request, input: null, output: this.outputServer() }, listener);
    return launched;
  }

  private started(
    id: number,
    request: Omit<GitRequest, 'input'> & { input: Buffer | string | null; output: string | null },
    listener: Listener,
  ): number {
    const child = this.launcher();
    this.listeners.set(id, listener);
    if (this.listeners.size === 1) child.channel?.ref();
    child.send({ type: 'start', id, ...request });
    return id;
  }

  /** The socket streamed commands' stdout connects to, each connection opened with its command's id. */
  private outputServer(): string {
    if (this.output !== null) return this.output.address;
    const address = outputAddress();
    const server = createServer({ pauseOnConnect: true }, (socket) => this.connected(socket));
    server.on('error', () => {
      if (this.output?.server === server) this.output = null; // its commands fail to connect, the next one retries
    });
    server.listen(address);
    server.unref();
    this.output = { server, address };
    return address;
  }

  private connected(socket: Socket): void {
    socket.on('error', () => {}); // a git killed mid-output resets it; the end is told by the launcher
    const header = () => {
      const head: Buffer | null = socket.read(4);
      if (head === null) return;
      socket.off('readable', header);
      const id = head.readUInt32BE(0);
      const launched = this.awaiting.get(id);
      if (!launched) return void socket.destroy();
      this.awaiting.delete(id);
      launched.attach(socket);
    };
    socket.on('readable', header);
  }

  private launcher(): ChildProcess {
    if (this.child !== null) return this.child;
    const child = fork(launcherUrl, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child = child;
    child.unref();
    child.channel?.unref();
    child.on('message', (message: Message) => this.received(message));
    // Heard once per launcher (its error, exit or channel's close, whichever comes first): the commands then
    // waiting were all sent to it; those started after go to the next launcher and are not its to fail.
    const gone = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      child.kill('SIGKILL'); // after an error it may still run
      const orphans = [...this.listeners.values()];
      this.listeners.clear();
      for (const listener of orphans) listener.close(null, why);
    };
    child.on('error', (error) => gone(`the git launcher failed: ${error.message}`));
    child.on('exit', (code, signal) => gone(`the git launcher exited (${signal ?? code})`));
    // Its channel closes as it dies, and the channel is what keeps this process waiting for the commands' ends
    // (the process handle is not): the exit may never be heard.
    child.on('disconnect', () => gone('the git launcher exited (its channel closed)'));
    return child;
  }

  private received(message: Message): void {
    const listener = this.listeners.get(message.id);
    if (!listener) return;
    switch (message.type) {
      case 'stdout':
        return listener.stdout(bytes(message.chunk));
      case 'stderr':
        return listener.stderr(bytes(message.chunk));
      case 'stdin-ack':
        return listener.stdinTaken?.();
    }
    this.listeners.delete(message.id);
    if (this.listeners.size === 0) this.child?.channel?.unref();
    if (message.type === 'close') listener.close(message.code, undefined, message.signal);
    else listener.close(null, message.message);
  }
}

/** The process's launcher: every git command the gateway runs goes through it. */
export const gitLauncher = new GitLauncher();
