// The git launcher: a small process that starts the gateway's short git commands for it (git-launcher.ts).
// Starting a process forks the one that starts it, and a fork costs in proportion to that process's memory:
// its page tables are copied while its event loop waits, and each of its pages faults once more when it is
// next written. Forked from this process, which holds little, a start costs a fraction of a millisecond.
//
// Over the IPC channel (advanced serialization, so output travels as bytes): `start` runs git (or the
// git program named) with the arguments, directory, environment and input given; its output comes back as `stdout` and `stderr` chunks,
// then `close` with the exit code (or `error` when it could not start). `kill` stops one. When the gateway
// goes, so does every git started here.
import { spawn, type ChildProcess } from 'node:child_process';

type Start = Readonly<{
  type: 'start';
  id: number;
  command: string | undefined;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  input: Buffer | string;
}>;
type Kill = Readonly<{ type: 'kill'; id: number }>;

const running = new Map<number, ChildProcess>();
/** Messages written to the channel but not yet flushed: output is paused while they pile up. */
let unflushed = 0;
const maxUnflushed = 16;
const paused = new Set<ChildProcess>();

const send = (message: object): void => {
  if (!process.connected) return;
  unflushed++;
  process.send!(message, undefined, {}, () => {
    unflushed--;
    if (unflushed <= maxUnflushed / 2) for (const child of paused) child.stdout?.resume();
    if (unflushed <= maxUnflushed / 2) paused.clear();
  });
};

function start({ id, command, args, cwd, env, input }: Start): void {
  const child = spawn(command ?? 'git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  running.set(id, child);
  child.stdout.on('data', (chunk: Buffer) => {
    send({ type: 'stdout', id, chunk });
    if (unflushed > maxUnflushed) {
      child.stdout.pause();
      paused.add(child);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => send({ type: 'stderr', id, chunk }));
  child.on('error', (error) => {
    running.delete(id);
    paused.delete(child);
    send({ type: 'error', id, message: error.message });
  });
  child.on('close', (code, signal) => {
    if (running.get(id) !== child) return; // it could not start: said already
    running.delete(id);
    paused.delete(child);
    send({ type: 'close', id, code, signal });
  });
  child.stdin.on('error', () => {}); // git may exit before reading all of its input
  child.stdin.end(input);
}

process.on('message', (message: Start | Kill) => {
  if (message.type === 'start') start(message);
  else running.get(message.id)?.kill('SIGKILL');
});
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
