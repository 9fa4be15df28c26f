import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { finished, Readable, Writable } from 'node:stream';

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

export type Channel = Readonly<{ send(message: object): void }>;

/**
 * The streams and events of one streamed git. Its input goes to the launcher as messages, each written chunk
 * acknowledged once git took it; its stdout is a connection of its own to the gateway (`attach`), read with
 * back-pressure; its stderr and its end come as messages.
 */
export class Streamed extends EventEmitter implements LaunchedGit {
  exitCode: number | null = null;
  private signal: NodeJS.Signals | null = null;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr = new Readable({ read: () => {} });
  /** The write waiting for the launcher to say git took its chunk. */
  private written: ((error?: Error | null) => void) | null = null;
  private output: Socket | null = null;
  private outputEnded = false;
  /** Git has ended (or could not start); its stdout may still be coming over its connection. */
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
    this.stdout = new Readable({ read: () => void this.output?.resume() });
    let open = 3; // stdout, stderr, and the exit
    const done = () => {
      if (--open === 0) this.emit('close', this.exitCode, this.signal);
    };
    finished(this.stdout, done);
    finished(this.stderr, done);
    this.once('ended', done);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    this.channel.send({ type: 'kill', id: this.id, signal });
    return true;
  }

  /** Git's stdout, connected: read into `stdout` as its reader asks. */
  attach(output: Socket): void {
    if (this.output !== null || this.outputEnded) return void output.destroy();
    this.output = output;
    output.on('data', (chunk: Buffer) => {
      if (!this.outputEnded && !this.stdout.push(chunk)) output.pause();
    });
    output.on('close', () => this.endOutput());
    output.resume();
  }

  private endOutput(): void {
    if (this.outputEnded) return;
    this.outputEnded = true;
    this.stdout.push(null);
  }

  stdinTaken(): void {
    const written = this.written;
    this.written = null;
    written?.();
  }

  /**
   * Git ended with `code` (its stdout connection ends by itself), or it never ran (`startError`): then no
   * output is coming, and a connection that still arrives is closed.
   */
  closed(code: number | null, signal: NodeJS.Signals | null, startError?: string): void {
    this.ended = true;
    this.stdinTaken();
    if (startError !== undefined) {
      this.emit('error', new Error(startError));
      this.output?.destroy();
      this.endOutput();
    } else {
      this.exitCode = code;
      this.signal = signal;
      this.emit('exit', code, signal);
    }
    this.stderr.push(null);
    this.stderr.resume(); // an unread stderr still ends
    this.emit('ended');
  }
}
