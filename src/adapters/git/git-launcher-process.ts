// The git launcher: a small process that starts the gateway's git commands for it (git-launcher.ts).
// Starting a process forks the one that starts it, and a fork costs in proportion to that process's memory:
// its page tables are copied while its event loop waits, and each of its pages faults once more when it is
// next written. Forked from this process, which holds little and serves no requests, a start costs 1–2 ms.
//
// Over the IPC channel (advanced serialization, so output travels as bytes): `start` runs git (or the git
// program named) with the arguments, directory, environment and input given; its output comes back as
// `stdout` and `stderr` chunks, then `close` with the exit code (or `error` when it could not start). `kill`
// signals one. A streamed command's input comes as `stdin` chunks (each acknowledged once git took it) and
// `stdin-end`; its stdout is a connection to the gateway's socket (`output`), opened with the command's id in
// four bytes, so a pack goes from git to the gateway with no copy here. When the gateway goes, so does every
// git started here.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';

type Start = Readonly<{
  type: 'start';
  id: number;
  command: string | undefined;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  /** The whole input; null: it comes as `stdin` messages, then `stdin-end`. */
  input: Buffer | string | null;
  /** The gateway's socket that a streamed command's stdout connects to; null: stdout comes as messages. */
  output: string | null;
}>;
type Other = Readonly<
  | { type: 'kill'; id: number; signal: NodeJS.Signals }
  | { type: 'stdin'; id: number; chunk: Uint8Array }
  | { type: 'stdin-end'; id: number }
>;

const running = new Map<number, ChildProcess>();
/** Messages written to the channel but not yet flushed: output is paused while they pile up. */
let unflushed = 0;
const maxUnflushed = 16;
const heldByChannel = new Set<number>();
/** What came for a streamed command while its output connection opened: replayed once git runs. */
const connecting = new Map<number, Other[]>();

const flow = (id: number): void => {
  const stdout = running.get(id)?.stdout;
  if (!stdout) return;
  if (heldByChannel.has(id)) stdout.pause();
  else stdout.resume();
};

const send = (message: object): void => {
  if (!process.connected) return;
  unflushed++;
  process.send!(message, undefined, {}, () => {
    unflushed--;
    if (unflushed > maxUnflushed / 2 || heldByChannel.size === 0) return;
    const held = [...heldByChannel];
    heldByChannel.clear();
    for (const id of held) flow(id);
  });
};

const forget = (id: number): void => {
  running.delete(id);
  heldByChannel.delete(id);
};

function start(message: Start): void {
  if (message.output === null) return run(message, 'pipe');
  const { id } = message;
  connecting.set(id, []);
  const socket = connect(message.output);
  socket.pause(); // this end only writes: what git is given is its own
  socket.on('error', (error) => {
    if (!connecting.delete(id)) return;
    send({ type: 'error', id, message: `its output could not reach the gateway: ${error.message}` });
  });
  socket.on('connect', () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(id);
    socket.write(header, (error) => {
      if (error || !connecting.has(id)) return; // said by the error event
      const waiting = connecting.get(id) ?? [];
      connecting.delete(id);
      run(message, socket);
      socket.destroy(); // git holds the connection now; its exit closes it
      for (const other of waiting) handle(other);
    });
  });
}

function run({ id, command, args, cwd, env, input }: Start, stdout: 'pipe' | Socket): void {
  // A process group of its own: a kill reaches what git started too (a remote helper, pack-objects, an alias's
  // shell), which would otherwise hold its output open, and the command with it, until it ended by itself.
  const child = spawn(command ?? 'git', args, { cwd, env, stdio: ['pipe', stdout, 'pipe'], detached: true });
  running.set(id, child);
  child.stdout?.on('data', (chunk: Buffer) => {
    send({ type: 'stdout', id, chunk });
    if (unflushed > maxUnflushed) {
      heldByChannel.add(id);
      flow(id);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => send({ type: 'stderr', id, chunk }));
  child.on('error', (error) => {
    forget(id);
    send({ type: 'error', id, message: error.message });
  });
  child.on('close', (code, signal) => {
    if (running.get(id) !== child) return; // it could not start: said already
    forget(id);
    send({ type: 'close', id, code, signal });
  });
  child.stdin!.on('error', () => {}); // git may exit before reading all of its input
  if (input !== null) child.stdin!.end(input);
}

/** Signals git and every process it started (its group). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal); // the group is gone (or was never made): git alone, if it is still there
  }
}

function handle(message: Other): void {
  const waiting = connecting.get(message.id);
  if (waiting) return void waiting.push(message);
  const child = running.get(message.id);
  if (!child) return;
  switch (message.type) {
    case 'kill':
      return killGroup(child, message.signal);
    case 'stdin':
      // Acknowledged once git has taken it (or cannot): the writer sends the next chunk then.
      return void child.stdin!.write(message.chunk, () => send({ type: 'stdin-ack', id: message.id }));
    case 'stdin-end':
      return void child.stdin!.end();
  }
}

process.on('message', (message: Start | Other) => {
  if (message.type === 'start') start(message);
  else handle(message);
});
process.on('disconnect', () => {
  for (const child of running.values()) killGroup(child, 'SIGKILL');
  process.exit(0);
});
