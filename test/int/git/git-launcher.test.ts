import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t, { type Test } from 'tap';
import type { LaunchedGit } from '../../../src/adapters/git/git-launcher.ts';
import { git, GitError, gitText, spawnGit } from '../../../src/adapters/git/git-process.ts';
import { streamUploadPack } from '../../../src/adapters/git/upload-pack.ts';

// Every git the gateway runs starts from its launcher process (decision 453): short commands over its channel,
// streamed ones (upload-pack, receive-pack, the external copy) with their stdout on a connection to the
// gateway's own socket. These tests hold both to what a child process of the gateway's own would do.

type Ended = { out: Buffer; stderr: string; code: number | null; signal: string | null; error: string | null };

/** Reads a streamed git to its end: everything it wrote, and how it closed. */
const ended = (child: LaunchedGit): Promise<Ended> =>
  new Promise((resolve) => {
    const out: Buffer[] = [];
    let stderr = '';
    let error: string | null = null;
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (e: Error) => (error = e.message));
    child.on('close', (code: number | null, signal: string | null) =>
      resolve({ out: Buffer.concat(out), stderr, code, signal, error }),
    );
  });

/** A repository with one commit of `files` files of `size` random bytes each, packed. */
function repository(t: Test, files: number, size: number): { dir: string; head: string } {
  const dir = mkdtempSync(join(tmpdir(), 'launcher-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', dir]);
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${i}.bin`), randomBytes(size)); // incompressible
  execFileSync('git', ['-C', dir, 'add', '-A']);
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'c']);
  execFileSync('git', ['-C', dir, 'gc', '-q']);
  return { dir, head: execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD']).toString().trim() };
}

const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;

t.test('a streamed git: its input acknowledged chunk by chunk, its output whole, its exit code', async (t) => {
  const child = spawnGit(['hash-object', '--stdin']);
  const done = ended(child);
  const data = Buffer.alloc(10 << 20);
  for (let i = 0; i < data.length; i += 4) data.writeUInt32LE(i, i);
  const chunk = data.length / 100;
  for (let i = 0; i < 100; i++) {
    if (!child.stdin.write(data.subarray(i * chunk, (i + 1) * chunk)))
      await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  const { out, code } = await done;
  const expected = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
  t.equal(out.toString().trim(), expected, '10 MiB written in 100 chunks reach git in order');
  t.equal(code, 0);
  t.equal(child.exitCode, 0);
});

t.test('upload-pack sends the whole pack over the output connection, held back while its reader is full', async (t) => {
  const { dir, head } = repository(t, 200, 16_384);
  const body = Buffer.from(pkt(`want ${head}\n`) + '0000' + pkt('done\n'));
  const whole = await git(['upload-pack', '--stateless-rpc', dir], { input: body });

  const child = spawnGit(['upload-pack', '--stateless-rpc', dir]);
  child.stdin.end(body);
  child.stdout.pause();
  await new Promise((resolve) => child.stdout.once('readable', resolve));
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.ok(child.stdout.readableLength <= child.stdout.readableHighWaterMark * 2, 'an unread output is not gathered');
  t.equal(child.exitCode, null, 'git waits while its output is not read');
  const { out, code } = await ended(child);
  t.equal(code, 0);
  t.ok(out.length > 3_000_000, `a pack of ${out.length} bytes`);
  t.ok(out.equals(whole), 'the bytes a short command gets for the same request');
});

t.test('a fetch whose client goes away leaves no git behind; a whole one ends complete', async (t) => {
  const { dir, head } = repository(t, 200, 16_384);
  const body = Buffer.from(pkt(`want ${head}\n`) + '0000' + pkt('done\n'));
  const running = () => {
    try {
      return execFileSync('pgrep', ['-f', `upload-pack --stateless-rpc ${dir}$`])
        .toString()
        .trim()
        .split('\n');
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
  };
  const fetch = (read: (out: PassThrough) => void) =>
    new Promise<{ bytes: number; complete: boolean }>((resolve) => {
      const out = new PassThrough({ highWaterMark: 16_384 });
      read(out);
      streamUploadPack({
        repo: dir,
        version: 0,
        body,
        out,
        beforePack: async () => {},
        refused: () => t.fail('never refused'),
        sent: (bytes, complete) => resolve({ bytes, complete }),
      });
    });

  const gone = await fetch((out) => out.once('readable', () => setTimeout(() => out.destroy(), 100)));
  t.notOk(gone.complete, `the client went away after ${gone.bytes} bytes`);
  t.ok(gone.bytes < 3_000_000, 'before the pack ended');
  const deadline = Date.now() + 5000;
  while (running().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  t.strictSame(running(), [], 'its upload-pack is gone');

  const whole = await fetch((out) => out.resume());
  t.ok(whole.complete && whole.bytes > 3_000_000, `a reader to the end gets the whole pack (${whole.bytes} bytes)`);
});

t.test('how a streamed git ends: a failure, a kill, a directory that does not exist', async (t) => {
  const unknown = await ended(spawnGit(['no-such-command']));
  t.equal(unknown.code, 1, 'an unknown subcommand exits 1');
  t.match(unknown.stderr, /not a git command/);

  const running = spawnGit(['cat-file', '--batch'], { cwd: process.cwd() });
  const killed = ended(running);
  setTimeout(() => running.kill('SIGKILL'), 100);
  t.match(await killed, { code: null, signal: 'SIGKILL', error: null }, 'killed while it runs');
  t.equal(running.exitCode, null);

  const early = spawnGit(['cat-file', '--batch'], { cwd: process.cwd() });
  const killedEarly = ended(early);
  early.kill('SIGKILL'); // before its output connection is open
  t.match(await killedEarly, { code: null, signal: 'SIGKILL' }, 'killed as soon as it was asked for');

  const nowhere = await ended(spawnGit(['status'], { cwd: join(tmpdir(), 'no-such-directory-here') }));
  t.match(nowhere, { code: null, error: /ENOENT/ }, 'could not start: error, then close');
});

t.test('fifty streamed and fifty short commands at once each get their own output', async (t) => {
  const streamed = Array.from({ length: 50 }, (_, i) => {
    const child = spawnGit(['hash-object', '--stdin']);
    child.stdin.end(`content ${i}`);
    return ended(child).then((r) => r.out.toString().trim());
  });
  const short = Array.from({ length: 50 }, (_, i) => gitText(['hash-object', '--stdin'], { input: `content ${i}` }));
  const [a, b] = await Promise.all([Promise.all(streamed), Promise.all(short)]);
  t.strictSame(a, b, 'the same answers, each to its own command');
  t.equal(new Set(a).size, 50);
});

t.test('short commands keep their time limit and output cap', async (t) => {
  const failure = (run: Promise<unknown>) =>
    run.then(
      () => null,
      (error: unknown) => error,
    );
  const capped = await failure(git(['log', '-p'], { cwd: process.cwd(), maxOutputBytes: 1000 }));
  t.ok(capped instanceof GitError, 'over the cap: a GitError');
  t.match((capped as GitError).message, /git log produced more than 1000 bytes/);
  const started = Date.now();
  const slow = await failure(git(['-c', 'alias.wait=!sleep 5', 'wait'], { timeoutMs: 300 }));
  t.ok(slow instanceof GitError && slow.timedOut, 'over the time limit: a GitError that says so');
  t.ok(Date.now() - started < 4000, 'killed at its limit, not waited for');
});

t.test('when the launcher dies, what it ran fails and the next command starts a new one', async (t) => {
  const child = spawnGit(['cat-file', '--batch'], { cwd: process.cwd() });
  const done = ended(child);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const launchers = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'git-launcher-process'])
    .toString()
    .trim()
    .split('\n');
  t.equal(launchers.length, 1, 'one launcher per process');
  process.kill(Number(launchers[0]), 'SIGKILL');
  t.match(await done, { error: /launcher exited/ }, 'the streamed command fails');
  t.equal(await gitText(['version']), execFileSync('git', ['version']).toString().trim(), 'the next command runs');
});
