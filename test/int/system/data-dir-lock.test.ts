import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { DataDirLocked, isAlive, lockDataDir } from '../../../src/adapters/system/data-dir-lock.ts';

// An immediate restart after kill -9 must take the data directory over while the
// killed gateway is a zombie, or when its pid now belongs to another program; a live gateway keeps it.
// Real processes throughout: a node process that holds the lock as a gateway does, `sleep` as the
// unrelated program.

const lockModule = resolve('src/adapters/system/data-dir-lock.ts');
// What `serve` does first: lock the data directory, say so, and keep running.
const holderSource =
  `import { lockDataDir } from ${JSON.stringify(lockModule)};` +
  "lockDataDir(process.argv[1]); process.stdout.write('locked\\n'); setInterval(() => {}, 60_000);";
const holderArgs = (dataDir: string) => ['--input-type=module', '-e', holderSource, dataDir];

/** Fields 3 onwards of /proc/<pid>/stat (after the command name), or null once the process is gone. */
const statOf = (pid: number): string[] | null => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
};
const stateOf = (pid: number): string | null => statOf(pid)?.[0] ?? null;
const startTimeOf = (pid: number): string => statOf(pid)?.[19] ?? 'gone';

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 60_000) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

/** Lines the child writes to stdout, as they come. */
function linesOf(child: ChildProcess): string[] {
  const lines: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
  });
  return lines;
}

function started(t: Test, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((done) => child.once('exit', () => done()));

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const pidFile = (dir: string) => join(dir, 'gateway.pid');

t.test('the pid file records the pid and its start time; release removes it', async (t) => {
  const dir = dataDir(t);
  const lock = lockDataDir(dir);
  t.equal(readFileSync(pidFile(dir), 'utf8'), `${process.pid} ${startTimeOf(process.pid)}\n`);
  t.equal(lock.staleOwner, null, 'nothing to take over in a new directory');
  lock.release();
  t.throws(() => readFileSync(pidFile(dir)), { code: 'ENOENT' });
});

t.test('a live gateway keeps the directory; once it is gone and reaped, the lock is taken over', async (t) => {
  const dir = dataDir(t);
  const holder = started(t, process.execPath, holderArgs(dir));
  const lines = linesOf(holder);
  await until('the holder to lock', () => lines.includes('locked'));
  t.throws(() => lockDataDir(dir), new DataDirLocked(dir, holder.pid as number), 'refused while it runs');
  t.throws(() => lockDataDir(dir), DataDirLocked, 'and again: a refusal leaves its pid file in place');

  holder.kill('SIGKILL');
  await exited(holder);
  const lock = lockDataDir(dir);
  t.equal(lock.staleOwner, holder.pid, 'the dead owner is reported, so its embedded server can be stopped');
  lock.release();
});

t.test('a gateway killed with -9 and not yet reaped (a zombie) no longer holds the directory', async (t) => {
  const dir = dataDir(t);
  // sh starts the holder in the background, prints its pid and becomes `sleep`, which never waits
  // for children: once killed, the holder stays a zombie for as long as the sleep runs.
  const parent = started(
    t,
    'sh',
    ['-c', `"${process.execPath}" --import tsx --input-type=module -e "$HOLDER" "$DIR" & echo $!; exec sleep 120`],
    { ...process.env, HOLDER: holderSource, DIR: dir },
  );
  const lines = linesOf(parent);
  await until('the holder to lock', () => lines.includes('locked'));
  const holderPid = Number(lines[0]);
  t.ok(Number.isInteger(holderPid) && holderPid > 0, 'the holder pid is known');
  t.throws(() => lockDataDir(dir), DataDirLocked, 'refused while the holder runs');

  process.kill(holderPid, 'SIGKILL');
  await until('the holder to become a zombie', () => stateOf(holderPid) === 'Z');
  let answers = true;
  try {
    process.kill(holderPid, 0);
  } catch {
    answers = false;
  }
  t.ok(answers, 'the zombie still answers kill(pid, 0)');
  t.notOk(isAlive(holderPid), 'isAlive says it is not');

  const lock = lockDataDir(dir);
  t.equal(lock.staleOwner, holderPid, 'the lock is taken over');
  t.equal(stateOf(holderPid), 'Z', 'while the old owner is still a zombie');
  t.equal(readFileSync(pidFile(dir), 'utf8').split(' ')[0], String(process.pid), 'and now names this process');
  lock.release();
  parent.kill('SIGKILL');
  await exited(parent);
});

t.test('a pid now used by another program does not hold the directory', async (t) => {
  const dir = dataDir(t);
  const other = started(t, 'sleep', ['120']);
  await until('sleep to run', () => stateOf(other.pid as number) !== null);
  const pid = other.pid as number;

  // The file a gateway that started before this sleep would have left: its start time is not the sleep's.
  writeFileSync(pidFile(dir), `${pid} ${startTimeOf(process.pid)}\n`);
  const lock = lockDataDir(dir);
  t.equal(lock.staleOwner, pid, 'taken over from a pid whose start time differs');
  lock.release();

  writeFileSync(pidFile(dir), `${pid}\n`);
  const legacy = lockDataDir(dir);
  t.equal(legacy.staleOwner, pid, 'a pid file without a start time: taken over when the pid is not running node');
  legacy.release();

  writeFileSync(pidFile(dir), `${pid} ${startTimeOf(pid)}\n`);
  t.throws(() => lockDataDir(dir), new DataDirLocked(dir, pid), 'kept while the recorded process itself runs');
  t.ok(other.exitCode === null && other.signalCode === null, 'the other program was left alone');
});

t.test('a pid file naming a process that is gone is taken over', async (t) => {
  const dir = dataDir(t);
  const gone = started(t, 'sleep', ['0']);
  await exited(gone);
  writeFileSync(pidFile(dir), `${gone.pid as number} 1\n`);
  const lock = lockDataDir(dir);
  t.equal(lock.staleOwner, gone.pid);
  lock.release();
});
