// Runs test files, each in a Node process of its own, a bounded number at a time, and counts what their TAP
// output says. The files use tap's test API (`import t from 'tap'`) and run as plain `node FILE`; this runner
// stands in for tap's own runner, which loads its process-tracking and mocking loaders into every test
// process and, through NODE_OPTIONS, into every Node process a test starts (the gateway, the CLI): those
// loaders doubled the CPU each process spent loading the gateway's modules.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Parser, type Result } from 'tap-parser';

export type Tally = { pass: number; fail: number; skip: number; todo: number };

export type FileOutcome = Readonly<{
  file: string;
  ok: boolean;
  ms: number;
  tally: Tally;
  /** Why the file failed beyond its assertions: its exit, a timeout. */
  exit: string | null;
  tap: string;
  stderr: string;
}>;

export type RunOptions = Readonly<{
  jobs: number;
  /** Each file's own limit (tap's TAP_TIMEOUT); the process is killed 30 s after it if still running. */
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  resultsDir: string;
  onFinished(outcome: FileOutcome, index: number): void;
}>;

/** Counts leaf assertions; a subtest's own line counts only when it failed with no failing assertion inside. */
function countInto(parser: Parser, tally: Tally): void {
  let childFailuresBefore: number | null = null;
  parser.on('child', (child: Parser) => {
    childFailuresBefore = tally.fail;
    countInto(child, tally);
  });
  parser.on('assert', (result: Result) => {
    const before = childFailuresBefore;
    childFailuresBefore = null;
    if (before !== null) {
      if (!result.ok && !result.todo && tally.fail === before) tally.fail += 1;
      return;
    }
    if (result.skip) tally.skip += 1;
    else if (result.todo) tally.todo += 1;
    else if (result.ok) tally.pass += 1;
    else tally.fail += 1;
  });
}

function runFile(file: string, options: RunOptions): Promise<FileOutcome> {
  const started = performance.now();
  const tally: Tally = { pass: 0, fail: 0, skip: 0, todo: 0 };
  const parser = new Parser();
  countInto(parser, tally);
  let planOk = true;
  parser.on('complete', (results: { ok: boolean }) => (planOk = results.ok));
  const child = spawn(process.execPath, [file], {
    env: { ...options.env, TAP_TIMEOUT: String(options.timeoutSeconds) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tap = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    tap += text;
    parser.write(text);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-64_000)));
  let timedOut = false;
  const killer = setTimeout(
    () => {
      timedOut = true;
      child.kill('SIGKILL');
    },
    (options.timeoutSeconds + 30) * 1000,
  );
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      // A process the test left behind may hold the pipes open: the output is taken as it is shortly after.
      const grace = setTimeout(() => child.stdout.destroy(), 2000);
      const finish = () => {
        clearTimeout(grace);
        parser.end();
        const exit = timedOut
          ? `killed after ${options.timeoutSeconds + 30} s`
          : code !== 0
            ? `exited with ${signal ?? `code ${code}`}`
            : !planOk && tally.fail === 0
              ? 'its TAP output is incomplete (plan not met)'
              : null;
        if (exit !== null && tally.fail === 0) tally.fail = 1;
        resolve({
          file,
          ok: exit === null && tally.fail === 0,
          ms: performance.now() - started,
          tally,
          exit,
          tap,
          stderr,
        });
      };
      if (child.stdout.readableEnded || child.stdout.destroyed) finish();
      else child.stdout.once('close', finish);
    });
  });
}

/** Runs the files, `jobs` at a time in the order given, writing each file's TAP to resultsDir/FILE.tap. */
export async function runTestFiles(files: readonly string[], options: RunOptions): Promise<FileOutcome[]> {
  const queue = files.map((file, index) => ({ file, index }));
  const outcomes: FileOutcome[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const outcome = await runFile(next.file, options);
      const path = join(options.resultsDir, `${next.file}.tap`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, outcome.tap);
      outcomes.push(outcome);
      options.onFinished(outcome, next.index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  return outcomes;
}
