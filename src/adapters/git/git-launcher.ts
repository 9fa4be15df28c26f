import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { finished, Readable, Writable } from 'node:stream';
import { workerModule } from '../system/worker-slot.ts';

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

/**
 * A streamed git started through the launcher, with what its callers use of a ChildProcess: the three
 * streams (stdout with back-pressure), `kill`, `exitCode`, and the `error`, `exit` and `close` events.
 */
export interface LaunchedGit extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exitCode: number | null;
  kill(signal?: NodeJS.Signals): boolean;
}

type Message =
  | { type: 'stdout' | 'stderr'; id: number; chunk: Uint8Array }
  | { type: 'stdin-ack'; id: number }
  | { type: 'close'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string };

type Channel = Readonly<{ send(message: object): void }>;
/** A streamed command's listener also hears when git took a chunk of its input. */
type Listener = GitListener & Readonly<{ stdinTaken?(): void }>;

const launcherUrl = workerModule(import.meta.url, 'git-launcher-process');
const bytes = (chunk: Uint8Array): Buffer => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/** The streams and events of one streamed git, fed by the launcher's messages. */
class Streamed extends EventEmitter implements LaunchedGit {
  exitCode: number | null = null;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr = new Readable({ read: () => {} });
  /** The write waiting for the launcher to say git took its chunk. */
  private written: ((error?: Error | null) => void) | null = null;
  private paused = false;
  private ended = false;
  private readonly id: number;
  private readonly channel: Channel;

  constructor(id: number, channel: Channel) {
    super();
    this.id = id;
    this.channel = channel;
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        if (this.ended) return callback();
        this.written = callback;
        channel.send({ type: 'stdin', id, chunk });
      },
      final: (callback) => {
        if (!this.ended) channel.send({ type: 'stdin-end', id });
        callback();
      },
    });
    this.stdout = new Readable({
      read: () => {
        if (!this.paused || this.ended) return;
        this.paused = false;
        channel.send({ type: 'resume', id });
      },
    });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    this.channel.send({ type: 'kill', id: this.id, signal });
    return true;
  }

  stdoutChunk(chunk: Buffer): void {
    if (this.stdout.push(chunk) || this.paused) return;
    this.paused = true;
    this.channel.send({ type: 'pause', id: this.id });
  }

  stdinTaken(): void {
    const written = this.written;
    this.written = null;
    written?.();
  }

  closed(code: number | null, signal: NodeJS.Signals | null, startError?: string): void {
    this.ended = true;
    this.stdinTaken();
    if (startError !== undefined) this.emit('error', new Error(startError));
    else {
      this.exitCode = code;
      this.emit('exit', code, signal);
    }
    this.stdout.push(null);
    this.stderr.push(null);
    let open = 2;
    const done = () => {
      if (--open === 0) this.emit('close', code, signal);
    };
    finished(this.stdout, done);
    finished(this.stderr, done);
    this.stderr.resume(); // an unread stderr still ends
  }
}

/**
 * Starts git through the launcher process (git-launcher-process.ts), so that the gateway's own memory is not
 * forked for every git command (decision 453). One launcher per process, started on first use; it keeps the
 * process alive only while a git runs. When it dies the git commands it ran fail, and the next one starts a
 * new one.
 */
class GitLauncher {
  private child: ChildProcess | null = null;
  private readonly listeners = new Map<number, Listener>();
  private nextId = 1;
  private readonly channel: Channel = {
    send: (message) => void (this.child?.connected && this.child.send(message)),
  };

  /** A command whose input is known: its output goes to `listener`. */
  run(request: GitRequest, listener: GitListener): { kill(): void } {
    const id = this.started(request, listener);
    return { kill: () => void (this.listeners.has(id) && this.channel.send({ type: 'kill', id, signal: 'SIGKILL' })) };
  }

  /** A command whose input is written as it comes, and whose output is read as a stream. */
  spawn(request: Omit<GitRequest, 'input'>): LaunchedGit {
    let launched: Streamed | null = null;
    const id = this.started(
      { ...request, input: null },
      {
        stdout: (chunk) => launched?.stdoutChunk(chunk),
        stderr: (chunk) => void launched?.stderr.push(chunk),
        close: (code, startError, signal) => launched?.closed(code, signal ?? null, startError),
        stdinTaken: () => launched?.stdinTaken(),
      },
    );
    launched = new Streamed(id, this.channel);
    return launched;
  }

  private started(request: Omit<GitRequest, 'input'> & { input: Buffer | string | null }, listener: Listener) {
    const child = this.launcher();
    const id = this.nextId++;
    this.listeners.set(id, listener);
    if (this.listeners.size === 1) child.channel?.ref();
    child.send({ type: 'start', id, ...request });
    return id;
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
