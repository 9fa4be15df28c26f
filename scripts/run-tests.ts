// The test command (npm test): starts one embedded PostgreSQL for the whole run when a selected test
// needs it (unless TEST_DATABASE_URL names a server), runs the test files (tap's test API, each file a plain
// `node FILE` process, four at a time: scripts/run-test-files.ts, decision 456), prints a line per file as it
// ends (the whole TAP output of a file that failed), and ends with the plain line `N passed, N failed` that CI
// reads.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/adapters/postgres/embedded.ts';
import { runTestFiles, type FileOutcome } from './run-test-files.ts';
import { vendorBundle } from './test-vendor.ts';

// Every Node process the tests start loads the TypeScript sources from a cache of their stripped JavaScript, with
// V8's compile cache on (scripts/ts-load-cache.ts): through NODE_OPTIONS, which the test files pass on to the
// gateways and CLIs they start. TS_LOAD_CACHE=0 leaves it out (Node strips the sources itself, as `npx tap` does).
const loadCache = `--import=${pathToFileURL(resolve('scripts/ts-load-cache.ts')).href}`;
if (process.env.TS_LOAD_CACHE !== '0') {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, loadCache].filter(Boolean).join(' ');
  // The heavy dependencies, bundled once per lock file, loaded through the same hook (scripts/test-vendor.ts).
  const vendor = await vendorBundle(process.cwd());
  if (vendor) process.env.GATEWAY_TEST_VENDOR = vendor;
}

const roots =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : ['test/unit', 'test/int', 'test/http', 'test/e2e', 'test/faults'];

const files = (path: string): string[] =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .sort()
        .flatMap((entry) => files(join(path, entry)))
    : path.endsWith('.test.ts')
      ? [relative(process.cwd(), path)]
      : [];

// Slowest first, so that the two workers end together rather than one finishing a long file alone at the end.
// test/durations.json holds each file's seconds from a whole run (TEST_DURATIONS_WRITE=1 npm test rewrites it);
// a file not in it is taken as slow, so a new file starts early.
// tap's settings in package.json: the plugins its test API is built with, the number of files run at a time
// (TEST_JOBS overrides it) and each file's time limit in seconds (TAP_TIMEOUT overrides it).
const tapConfig = (JSON.parse(readFileSync('package.json', 'utf8')) as { tap?: Record<string, unknown> }).tap ?? {};
const durationsFile = 'test/durations.json';
const durations: Record<string, number> = existsSync(durationsFile)
  ? (JSON.parse(readFileSync(durationsFile, 'utf8')) as Record<string, number>)
  : {};
const testFiles = roots
  .flatMap(files)
  .map((file, index) => ({ file, index, seconds: durations[file] ?? 60 }))
  .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
  .map(({ file }) => file);
if (testFiles.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}

const run = (command: string, args: string[], env: NodeJS.ProcessEnv, capture: boolean) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });

// Whether a test needs the database, read from the files rather than from where they sit: a test reaches
// the server only through TEST_DATABASE_URL, which only test/support/database.ts reads (testDatabase,
// testPool; core.ts, gateway.ts, oidc.ts and assert.ts go through it). So a file needs it when its relative
// imports (static, side-effect or dynamic), followed transitively inside test/, reach that module, or when
// it names TEST_DATABASE_URL itself. src/ is not followed: it never reads TEST_DATABASE_URL (the gateway
// gets its database from its configuration). A test the scan misses fails loudly in testDatabase().
const testRoot = resolve('test');
const databaseModule = resolve('test/support/database.ts');
const relativeImport = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function reachesDatabase(path: string, seen: Set<string>): boolean {
  if (path === databaseModule) return true;
  if (seen.has(path) || !path.startsWith(`${testRoot}/`) || !existsSync(path)) return false;
  seen.add(path);
  const text = readFileSync(path, 'utf8');
  if (text.includes('TEST_DATABASE_URL')) return true;
  return [...text.matchAll(relativeImport)].some((match) => reachesDatabase(resolve(dirname(path), match[1]!), seen));
}

/**
 * The tests' server trades durability for speed (decision 454): no fsync, no full-page images, commits answered
 * before their WAL is flushed. A crash of the machine loses the run, which starts again from nothing anyway.
 */
async function volatile(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['fsync', 'full_page_writes', 'synchronous_commit'])
      await client.query(`alter system set ${setting} = off`);
    await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
}

const needsDatabase = testFiles.some((file) => reachesDatabase(resolve(file), new Set()));

let databaseUrl = process.env.TEST_DATABASE_URL;
let stopDatabase = async () => {};
if (!databaseUrl && !needsDatabase) console.error('# no selected test uses the database: PostgreSQL not started');
if (!databaseUrl && needsDatabase) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when the tests run as root
  const server = await startEmbeddedPostgres({ directory: join(dir, 'postgres'), log: () => {} });
  databaseUrl = server.url;
  await volatile(databaseUrl);
  stopDatabase = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

let outcomes: FileOutcome[] = [];
let dropTemplate = async () => {};
try {
  // Each test's database is a copy of one migrated template (test/support/database-template.ts).
  let templateEnv = {};
  if (databaseUrl && needsDatabase && !process.env.TEST_DATABASE_TEMPLATE) {
    const { createTemplateDatabase } = await import('../test/support/database-template.ts');
    const template = await createTemplateDatabase(databaseUrl);
    dropTemplate = template.drop;
    templateEnv = { TEST_DATABASE_TEMPLATE: template.name };
  }
  const env = databaseUrl ? { ...process.env, TEST_DATABASE_URL: databaseUrl, ...templateEnv } : process.env;
  // tap's plugin list (package.json) takes effect only after `tap build`; build once per change of it,
  // so that test runs started together do not rebuild tap under each other.
  const marker = join('node_modules', '.gateway-tap-build');
  const wanted = JSON.stringify(tapConfig.plugin ?? null);
  const built =
    existsSync('node_modules/@tapjs/test/test-built/dist/esm/index.js') &&
    existsSync(marker) &&
    readFileSync(marker, 'utf8') === wanted;
  if (!built) {
    const { code: buildCode } = await run('npx', ['tap', 'build'], env, true);
    if (buildCode !== 0) throw new Error('tap build failed');
    writeFileSync(marker, wanted);
  }
  // Tests that load the portal get it built first (Vite), once, not by each test at the same time.
  if (testFiles.some((file) => file.startsWith('test/e2e/') || file.startsWith('test/http/portal/'))) {
    const { code: buildCode } = await run(process.execPath, ['scripts/build-if-needed.mjs', '--portal'], env, true);
    if (buildCode !== 0) throw new Error('the portal build failed');
  }
  // Tests that read the SBOM (/actuator/sbom, `gateway sbom`) get it written first, from the lock files.
  if (testFiles.some((file) => /(?:^|\/)sbom[^/]*\.test\.ts$/.test(file))) {
    const { code: buildCode } = await run(process.execPath, ['scripts/build-if-needed.mjs', '--sbom'], env, true);
    if (buildCode !== 0) throw new Error('writing the SBOM failed');
  }
  const started = performance.now();
  let finished = 0;
  outcomes = await runTestFiles(testFiles, {
    jobs: Number(process.env.TEST_JOBS ?? tapConfig.jobs ?? 4),
    timeoutSeconds: Number(process.env.TAP_TIMEOUT ?? tapConfig.timeout ?? 300),
    env,
    resultsDir: join('.tap', 'test-results'),
    onFinished: (outcome) => {
      finished += 1;
      const { pass, fail, skip } = outcome.tally;
      const counts = `${pass} passed${fail ? `, ${fail} failed` : ''}${skip ? `, ${skip} skipped` : ''}`;
      console.log(
        `${outcome.ok ? 'ok' : 'not ok'} ${finished} - ${outcome.file} # time=${outcome.ms.toFixed(0)}ms (${counts})`,
      );
      if (!outcome.ok) {
        if (outcome.exit) console.log(`  # ${outcome.exit}`);
        console.log(outcome.tap.replace(/^/gm, '    '));
        if (outcome.stderr.trim()) console.log(`  # stderr:\n${outcome.stderr.replace(/^/gm, '    ')}`);
      }
    },
  });
  console.log(`# ${testFiles.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await dropTemplate().catch(() => {});
  await stopDatabase();
}

if (process.env.TEST_DURATIONS_WRITE === '1') {
  const measured = Object.fromEntries(outcomes.map((o) => [o.file, Math.round(o.ms / 100) / 10]));
  const merged: Record<string, number> = { ...durations, ...measured };
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((file) => [file, merged[file]]),
  );
  writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
}

const sum = (key: keyof FileOutcome['tally']) => outcomes.reduce((total, o) => total + o.tally[key], 0);
const passed = sum('pass');
const failed = sum('fail') + (outcomes.length === testFiles.length ? 0 : 1);
const skipped = sum('skip');
for (const outcome of outcomes.filter((o) => !o.ok)) console.log(`# failed: ${outcome.file}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
