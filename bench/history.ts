// The cost of reading new history before approval (decisions 334, 335): a generated marketplace upstream of
// BENCH_HISTORY_COMMITS commits (default 2,000), each changing BENCH_HISTORY_FILES_PER_COMMIT files (default 3:
// edits of SKILL.md, READMEs, commands, agents and scripts across the plugins, some files added, deleted or
// renamed), built with one `git fast-import` and served by plain `git http-backend` on loopback.
//
// Two gateways in their own processes, each on a fresh database: one with gateway.facade.history `upstream`
// (the default: every vetting run before approval reads the blobs approval would newly expose and gives them to
// the secrets connector, the `history` verdict), one with `vetted` (each snapshot a commit of the gateway's
// own whose parent is the served commit: no upstream history to read). Per run and mode, a fresh registration
// (a new marketplace name on its own copy of the upstream) and:
//   first   `POST /api/v1/marketplaces/{name}/ingest` (fetch, capture, vet before answering): the whole history
//           is new; the figure (median of BENCH_HISTORY_RUNS runs, default 3; modes interleaved);
//   next    the snapshot approved, one new upstream commit, ingested again: only that commit is new history.
// Commits and blobs read come from the gateway's log line 'history approval would expose read'; the git the
// gateway ran is counted by subcommand (bench/gateway-process.ts). Each gateway first ingests a one-commit
// copy, unmeasured (the connectors' one-time set-up). Then the history read and the secrets scan are timed
// apart in this process on the upstream repository (readNewHistory, runChain with the secrets connector).
// Writes bench/results/history.json and .md.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { readNewHistory } from '../src/adapters/git/history-reader.ts';
import { listTree } from '../src/adapters/git/tree-reader.ts';
import { runChain } from '../src/adapters/vetting/chain.ts';
import { secretsConnector } from '../src/adapters/vetting/secrets.connector.ts';
import { devSession, startBenchGateway, type BenchGateway } from './bench-gateway.ts';
import { CpuMeter } from './cpu.ts';
import { openBenchDatabase, postmasterPid, type BenchDatabase } from './database.ts';
import { benchScratch, envInt, log, sleep } from './env.ts';
import { seededRandom } from './events.ts';
import { gitEnv, gitIn, startGitHttpServer, type GitHttpServer } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, median, writeResultFiles } from './report.ts';

const config = () => ({
  commits: envInt('BENCH_HISTORY_COMMITS', 2000, 2),
  filesPerCommit: envInt('BENCH_HISTORY_FILES_PER_COMMIT', 3, 1),
  runs: envInt('BENCH_HISTORY_RUNS', 3, 1),
});
type Config = ReturnType<typeof config>;

const modes = ['upstream', 'vetted'] as const;
type Mode = (typeof modes)[number];
const limits = { maxBlobs: 20_000, maxFileBytes: 1_048_576, timeoutMs: 300_000 };
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------------------------------------------------
// The upstream: plugin content as marketplaces hold it, edited commit after commit.

type Files = Map<string, string>;

class Text {
  private readonly words: string[];
  private readonly random: () => number;
  constructor(random: () => number) {
    this.random = random;
    const syllables = ['ka', 'lo', 'mi', 'ra', 'ten', 'sor', 'vel', 'dun', 'pri', 'gal', 'ne', 'tra', 'cor', 'fin'];
    const common = ['the', 'a', 'to', 'of', 'and', 'in', 'for', 'is', 'with', 'when', 'use', 'this', 'skill'];
    const more = ['file', 'run', 'check', 'review', 'test', 'build', 'plugin', 'agent', 'command', 'output'];
    this.words = [...common, ...more];
    while (this.words.length < 500) {
      let word = '';
      for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++)
        word += syllables[Math.floor(random() * syllables.length)];
      this.words.push(word);
    }
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
  word(): string {
    return this.words[Math.floor(this.words.length * this.random() ** 2.5)]!;
  }
  sentence(): string {
    const words = Array.from({ length: 6 + Math.floor(this.random() * 12) }, () => this.word());
    return `${words[0]!.charAt(0).toUpperCase()}${words[0]!.slice(1)} ${words.slice(1).join(' ')}.`;
  }
  paragraph(): string {
    const r = this.random();
    if (r < 0.2)
      return Array.from({ length: 3 + Math.floor(this.random() * 4) }, () => `- ${this.sentence()}`).join('\n');
    if (r < 0.3) return `\`\`\`bash\n${this.word()} --${this.word()} ${this.word()}/${this.word()}.json\n\`\`\``;
    if (r < 0.4) return `## ${this.sentence().slice(0, 40)}`;
    return Array.from({ length: 2 + Math.floor(this.random() * 4) }, () => this.sentence()).join(' ');
  }
  markdown(head: string, paragraphs: number): string {
    return `${head}${Array.from({ length: paragraphs }, () => this.paragraph()).join('\n\n')}\n`;
  }
  /** A shell or Python helper: functions separated by blank lines. */
  script(language: 'sh' | 'py', functions: number): string {
    const head = language === 'sh' ? '#!/usr/bin/env bash\nset -euo pipefail\n\n' : 'import json\nimport sys\n\n';
    return `${head}${Array.from({ length: functions }, () => this.function(language)).join('\n\n')}\n`;
  }
  function(language: 'sh' | 'py'): string {
    const name = `${this.word()}_${this.word()}`;
    return language === 'sh'
      ? `${name}() {\n  # ${this.sentence()}\n  local ${this.word()}="$1"\n  echo "${this.sentence()}"\n}`
      : `def ${name}(${this.word()}_a, ${this.word()}_b):\n    """${this.sentence()}"""\n    return [x for x in ${this.word()}_a if x]`;
  }
}

const pluginNames = ['code-review', 'release-notes', 'db-migrate', 'test-runner', 'docs-writer', 'deploy-helper'];

function skillFile(text: Text, name: string): string {
  return text.markdown(`---\nname: ${name}\ndescription: ${text.sentence()}\n---\n\n# ${name}\n\n`, 14);
}

function initialFiles(text: Text): Files {
  const files: Files = new Map();
  files.set(
    '.claude-plugin/marketplace.json',
    `${JSON.stringify(
      {
        name: 'history-bench',
        owner: { name: 'Bench Upstream' },
        description: 'a generated marketplace with a long history',
        plugins: pluginNames.map((name) => ({ name, source: `./plugins/${name}`, description: text.sentence() })),
      },
      null,
      2,
    )}\n`,
  );
  for (const plugin of pluginNames) {
    const base = `plugins/${plugin}`;
    files.set(
      `${base}/.claude-plugin/plugin.json`,
      `${JSON.stringify({ name: plugin, version: '1.0.0', description: text.sentence(), author: { name: 'Bench Upstream' } }, null, 2)}\n`,
    );
    files.set(`${base}/README.md`, text.markdown(`# ${plugin}\n\n`, 12));
    for (let s = 0; s < 3; s++) {
      const name = `${plugin}-${text.word()}-${s}`;
      files.set(`${base}/skills/${name}/SKILL.md`, skillFile(text, name));
    }
    for (let c = 0; c < 2; c++)
      files.set(
        `${base}/commands/${text.word()}-${c}.md`,
        text.markdown(`---\ndescription: ${text.sentence()}\n---\n\n`, 5),
      );
    files.set(
      `${base}/agents/${plugin}-agent.md`,
      text.markdown(`---\nname: ${plugin}-agent\ndescription: ${text.sentence()}\ntools: Read, Grep, Glob\n---\n\n`, 6),
    );
    files.set(`${base}/scripts/${text.word()}-0.sh`, text.script('sh', 6));
    files.set(`${base}/scripts/${text.word()}-1.py`, text.script('py', 6));
  }
  return files;
}

type Change =
  { kind: 'M'; path: string; content: string } | { kind: 'D'; path: string } | { kind: 'R'; from: string; to: string };

/** Replaces, inserts or drops a paragraph (or a function of a script), keeping files under about 8 KiB. */
function edit(text: Text, random: () => number, path: string, content: string): string {
  if (path.endsWith('plugin.json')) {
    const json = JSON.parse(content) as { version: string };
    const [major, minor, patch] = json.version.split('.').map(Number) as [number, number, number];
    json.version = random() < 0.2 ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
    return `${JSON.stringify(json, null, 2)}\n`;
  }
  const script = path.endsWith('.sh') ? 'sh' : path.endsWith('.py') ? 'py' : null;
  const parts = content.trimEnd().split('\n\n');
  const fresh = () => (script ? text.function(script) : text.paragraph());
  const at = 1 + Math.floor(random() * Math.max(1, parts.length - 1));
  const r = random();
  if (r < 0.5 && parts.length > 2) parts[at] = fresh();
  else parts.splice(at, 0, fresh());
  while (parts.join('\n\n').length > 8192) parts.splice(1 + Math.floor(random() * (parts.length - 1)), 1);
  return `${parts.join('\n\n')}\n`;
}

/** One commit's changes: mostly edits, some additions, deletions and renames. */
function commitChanges(
  text: Text,
  random: () => number,
  files: Files,
  count: number,
  counter: { n: number },
): Change[] {
  const changes: Change[] = [];
  const touched = new Set<string>();
  const plugin = text.pick(pluginNames);
  for (let k = 0; k < count; k++) {
    // Most commits stay within one plugin; one change in four goes elsewhere.
    const where = random() < 0.75 ? plugin : text.pick(pluginNames);
    const base = `plugins/${where}`;
    const own = [...files.keys()].filter((p) => p.startsWith(`${base}/`) && !touched.has(p));
    const optional = own.filter((p) => /\/(skills|commands|scripts)\//.test(p));
    const r = random();
    if (r < 0.05) {
      const name = `${where}-${text.word()}-${counter.n++}`;
      const path = `${base}/skills/${name}/SKILL.md`;
      changes.push({ kind: 'M', path, content: skillFile(text, name) });
      files.set(path, (changes.at(-1) as { content: string }).content);
      touched.add(path);
    } else if (r < 0.08) {
      const path = `${base}/scripts/${text.word()}-${counter.n++}.sh`;
      const content = text.script('sh', 4);
      changes.push({ kind: 'M', path, content });
      files.set(path, content);
      touched.add(path);
    } else if (r < 0.12 && optional.length > 6) {
      const path = text.pick(optional);
      changes.push({ kind: 'D', path });
      files.delete(path);
      touched.add(path);
    } else if (r < 0.14 && optional.some((p) => /\/(commands|scripts)\//.test(p))) {
      const from = text.pick(optional.filter((p) => /\/(commands|scripts)\//.test(p)));
      const to = from.replace(/[^/]+(\.\w+)$/, (_, ext: string) => `${text.word()}-${counter.n++}${ext}`);
      changes.push({ kind: 'R', from, to });
      files.set(to, files.get(from)!);
      files.delete(from);
      touched.add(from).add(to);
    } else {
      const candidates = own.filter((p) => !p.endsWith('hooks.json'));
      // READMEs, SKILL.md and scripts change most; plugin.json now and then (a version bump).
      const path = random() < 0.05 ? `${base}/.claude-plugin/plugin.json` : text.pick(candidates);
      if (touched.has(path)) continue;
      const content = edit(text, random, path, files.get(path)!);
      changes.push({ kind: 'M', path, content });
      files.set(path, content);
      touched.add(path);
    }
  }
  return changes;
}

const data = (content: string) => `data ${Buffer.byteLength(content)}\n${content}\n`;

function commitStream(mark: number, parent: string | null, at: number, message: string, changes: Change[]): string {
  let out = `commit refs/heads/main\nmark :${mark}\n`;
  out += `author Bench Upstream <upstream@example.test> ${at} +0000\n`;
  out += `committer Bench Upstream <upstream@example.test> ${at} +0000\n${data(message)}`;
  if (parent) out += `from ${parent}\n`;
  for (const change of changes) {
    if (change.kind === 'D') out += `D ${change.path}\n`;
    else if (change.kind === 'R') out += `R ${change.from} ${change.to}\n`;
    else out += `M ${change.path.endsWith('.sh') ? '100755' : '100644'} inline ${change.path}\n${data(change.content)}`;
  }
  return `${out}\n`;
}

/** Runs `git fast-import` in `bare` on the stream `chunks` produces. */
async function fastImport(bare: string, home: string, chunks: Iterable<string>): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--date-format=raw'], {
    cwd: bare,
    env: gitEnv(home),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  for (const chunk of chunks)
    if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  child.stdin.end();
  const code = await closed;
  if (code !== 0) throw new Error(`git fast-import exited with ${code}: ${stderr.trim()}`);
}

type Upstream = Readonly<{
  bare: string;
  tip: string;
  first: string;
  buildMs: number;
  files: number;
  packBytes: number;
  changes: Record<string, number>;
  /** The stream of one more commit on top of `tip` (the same for every copy). */
  nextCommit: string;
}>;

async function buildUpstream(root: string, home: string, cfg: Config): Promise<Upstream> {
  const started = performance.now();
  const random = seededRandom(333);
  const text = new Text(random);
  const files = initialFiles(text);
  const bare = join(root, 'upstream.git');
  await gitIn(root, home, 'init', '--bare', '--quiet', '--initial-branch=main', bare);
  const counts: Record<string, number> = { edited: 0, added: 0, deleted: 0, renamed: 0 };
  const counter = { n: 100 };
  const t0 = 1_700_000_000;
  function* stream(): Generator<string> {
    yield commitStream(
      1,
      null,
      t0,
      'Initial marketplace\n',
      [...files].map(([path, content]) => ({ kind: 'M', path, content })),
    );
    for (let c = 2; c <= cfg.commits; c++) {
      const before = new Set(files.keys());
      const changes = commitChanges(text, random, files, cfg.filesPerCommit, counter);
      for (const change of changes)
        counts[
          change.kind === 'D'
            ? 'deleted'
            : change.kind === 'R'
              ? 'renamed'
              : before.has(change.path)
                ? 'edited'
                : 'added'
        ]!++;
      yield commitStream(c, `:${c - 1}`, t0 + c * 3607, `${text.sentence()}\n`, changes);
    }
  }
  await fastImport(bare, home, stream());
  await gitIn(bare, home, 'repack', '-a', '-d', '-q');
  const tip = await gitIn(bare, home, 'rev-parse', 'main');
  const first = await gitIn(bare, home, 'rev-list', '--max-parents=0', 'main');
  const packBytes = Number(/size-pack: (\d+)/.exec(await gitIn(bare, home, 'count-objects', '-v'))?.[1] ?? 0) * 1024;
  const nextCommit = commitStream(
    1,
    tip,
    t0 + (cfg.commits + 1) * 3607,
    'One more change\n',
    commitChanges(text, random, files, cfg.filesPerCommit, counter).filter((c) => c.kind === 'M'),
  );
  return {
    bare,
    tip,
    first,
    buildMs: performance.now() - started,
    files: files.size,
    packBytes,
    changes: counts,
    nextCommit,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The gateways.

type LogLine = { msg?: string; time?: string; snapshotId?: number; [key: string]: unknown };

/** What the gateway logged about vetting `snapshotId`: the history read, and where the run's time went. */
function vettingLog(logFile: string, snapshotId: number) {
  const lines: LogLine[] = [];
  for (const raw of readFileSync(logFile, 'utf8').split('\n')) {
    if (!raw.includes('"snapshotId"')) continue;
    try {
      const line = JSON.parse(raw) as LogLine;
      if (line.snapshotId === snapshotId) lines.push(line);
    } catch {
      // not a JSON line
    }
  }
  const at = (msg: string) => {
    const line = lines.filter((l) => l.msg === msg).at(-1);
    return line?.time ? Date.parse(line.time) : null;
  };
  const history = lines.filter((l) => l.msg === 'history approval would expose read').at(-1);
  const connectors = Object.fromEntries(
    lines.filter((l) => l.msg === 'connector finished').map((l) => [String(l.connector), Number(l.elapsedMs)]),
  );
  const started = at('vetting started');
  const chainDone = at('connector finished');
  const read = history?.time ? Date.parse(history.time) : null;
  const finished = at('vetting finished');
  return {
    commits: history ? Number(history.commits) : null,
    blobs: history ? Number(history.blobs) : null,
    truncated: history ? Boolean(history.truncated) : null,
    connectorsMs: connectors,
    // From the log's timestamps (millisecond resolution): the chain over the tree, then the history read
    // (served refs, git log, ls-tree, cat-file), then the secrets scan of the history and the recording.
    phasesMs:
      started !== null && chainDone !== null && read !== null && finished !== null
        ? { treeChain: chainDone - started, historyRead: read - chainDone, scanAndRecord: finished - read }
        : null,
  };
}

type IngestRun = Readonly<{
  marketplace: string;
  ms: number;
  snapshotId: number;
  sha: string;
  upstreamSha: string;
  outcome: string;
  historyVerdict: string | null;
  history: ReturnType<typeof vettingLog>;
  spawns: Record<string, number>;
  gitMs: Record<string, number>;
  cpuSeconds: Record<string, number>;
  machineBusyPercent: number;
  load: [number, number];
}>;

type Side = Readonly<{
  mode: Mode;
  gateway: BenchGateway;
  api: ReturnType<typeof devSession>;
  meter: CpuMeter;
}>;

async function timedIngest(side: Side, server: GitHttpServer, name: string): Promise<IngestRun> {
  const { api, gateway, meter } = side;
  await gateway.reset();
  await server.reset();
  const load0 = loadavg()[0]!;
  const before = meter.sample();
  const started = performance.now();
  const answer = await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${name}/ingest`));
  const ms = performance.now() - started;
  const cpu = CpuMeter.delta(before, meter.sample());
  const stats = await gateway.stats();
  const snapshotId = answer.body.id as number;
  const report = await api.expect('vetting report', 200, api.get(`/api/v1/snapshots/${snapshotId}/vetting`));
  const verdicts = ((report.body.run as { verdicts?: unknown[] } | undefined)?.verdicts ?? []) as Array<{
    connector: string;
    state: string;
    detail: string | null;
  }>;
  const history = verdicts.find((v) => v.connector === 'history');
  return {
    marketplace: name,
    ms: round(ms, 1),
    snapshotId,
    sha: answer.body.sha as string,
    upstreamSha: answer.body.upstreamSha as string,
    outcome: String(report.body.outcome),
    historyVerdict: history ? `${history.state}: ${history.detail ?? ''}` : null,
    history: vettingLog(gateway.logFile, snapshotId),
    spawns: stats.spawns,
    gitMs: Object.fromEntries(Object.entries(stats.gitLifetimes).map(([k, t]) => [k, Math.round(t.totalMs)])),
    cpuSeconds: cpu.cpuSeconds,
    machineBusyPercent: cpu.machineBusyPercent,
    load: [round(load0), round(loadavg()[0]!)],
  };
}

/**
 * Approves the snapshot (a 503 projection-lag answer means it was recorded) and waits until the marketplace
 * serves it, so the next ingest's history read sees it served; the time from the request to then.
 */
async function approve(side: Side, name: string, snapshotId: number, sha: string) {
  const started = performance.now();
  let answer = await side.api.post(`/api/v1/snapshots/${snapshotId}/approve`);
  if (answer.status === 409 && answer.text.includes('vetting-blocked'))
    answer = await side.api.post(`/api/v1/snapshots/${snapshotId}/approve?overrideReason=benchmark`);
  if (answer.status !== 200 && !(answer.status === 503 && answer.text.includes('projection-lag')))
    throw new Error(`approve ${snapshotId}: ${answer.status} ${answer.text.slice(0, 500)}`);
  for (;;) {
    const view = await side.api.get('/api/v1/marketplaces');
    const listed =
      view.status === 200 ? (JSON.parse(view.text) as Array<{ name: string; servedSha: string | null }>) : [];
    if (listed.find((m) => m.name === name)?.servedSha === sha) break;
    if (performance.now() - started > 120_000)
      throw new Error(`${name}: ${sha} not served 120 s after approval: ${view.status} ${view.text.slice(0, 300)}`);
    await sleep(50);
  }
  return { status: answer.status, servedAfterMs: round(performance.now() - started, 0) };
}

type RunPair = Readonly<{ first: IngestRun; approval: Awaited<ReturnType<typeof approve>>; next: IngestRun }>;

/** A fresh registration on its own copy of the upstream: first ingest, approval, one commit more, ingest. */
async function measureRun(
  side: Side,
  server: GitHttpServer,
  up: Upstream,
  root: string,
  home: string,
  run: number,
): Promise<RunPair> {
  const name = `hist-${side.mode}-${run}`;
  const bare = join(root, `${name}.git`);
  cpSync(up.bare, bare, { recursive: true });
  await side.api.expect(
    'register',
    201,
    side.api.post('/api/v1/marketplaces', { name, url: `${server.baseUrl}/${name}.git` }),
  );
  const first = await timedIngest(side, server, name);
  if (first.upstreamSha !== up.tip) throw new Error(`${name}: captured ${first.upstreamSha}, expected ${up.tip}`);
  log(
    `history ${side.mode} run ${run}: first ingest ${fmt(first.ms)} ms (${first.outcome}; history ${first.history.commits} commits, ${first.history.blobs} blobs)`,
  );
  const approval = await approve(side, name, first.snapshotId, first.sha);
  await fastImport(bare, home, [up.nextCommit]);
  const next = await timedIngest(side, server, name);
  if (next.snapshotId === first.snapshotId) throw new Error(`${name}: the new commit captured no new snapshot`);
  log(
    `history ${side.mode} run ${run}: after one new commit ${fmt(next.ms)} ms (history ${next.history.commits} commits, ${next.history.blobs} blobs)`,
  );
  return { first, approval, next };
}

/** The history read and the secrets scan timed apart, in this process, on the upstream repository. */
async function breakdown(up: Upstream, home: string, runs: number) {
  const readMs: number[] = [];
  const scanMs: number[] = [];
  const logMs: number[] = [];
  const treeMs: number[] = [];
  let read = await readNewHistory(up.bare, up.tip, [], limits);
  let findings = 0;
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await gitIn(up.bare, home, 'log', '-m', '--raw', '-z', '--no-abbrev', '--no-renames', '--format=%x01%H', up.tip);
    logMs.push(performance.now() - t);
    t = performance.now();
    await listTree(up.bare, up.tip);
    treeMs.push(performance.now() - t);
    t = performance.now();
    read = await readNewHistory(up.bare, up.tip, [], limits);
    readMs.push(performance.now() - t);
    const input = {
      files: read.files,
      byPath: new Map(read.files.map((f) => [f.path, f])),
      maxFileBytes: limits.maxFileBytes,
      license: { allow: [], ban: [] },
    };
    t = performance.now();
    const [verdict] = await runChain(
      [secretsConnector],
      input,
      { snapshotId: 0, marketplace: 'history-bench', sha: up.tip },
      { mode: 'run-all', timeoutMs: limits.timeoutMs },
    );
    scanMs.push(performance.now() - t);
    findings = verdict?.findings.length ?? 0;
  }
  const bytes = read.files.reduce((sum, f) => sum + f.size, 0);
  return {
    commits: read.commits,
    blobs: read.blobs,
    bytes,
    findings,
    gitLogMs: round(median(logMs), 1),
    lsTreeMs: round(median(treeMs), 1),
    readNewHistoryMs: round(median(readMs), 1),
    secretsScanMs: round(median(scanMs), 1),
    samples: { readMs: readMs.map((n) => round(n, 1)), scanMs: scanMs.map((n) => round(n, 1)) },
  };
}

// ---------------------------------------------------------------------------------------------------------

export async function historyBenchmark(): Promise<void> {
  const cfg = config();
  const scratch = benchScratch('gateway-bench-history-');
  const { root } = scratch;
  const home = join(root, 'home');
  const repos = join(root, 'repos');
  for (const dir of [home, repos]) mkdirSync(dir, { recursive: true });
  const open: { dbs: BenchDatabase[]; gateways: BenchGateway[]; clients: pg.Client[]; server?: GitHttpServer } = {
    dbs: [],
    gateways: [],
    clients: [],
  };
  await scratch.run(
    async () => {
      log(`history: building an upstream of ${cfg.commits} commits × ${cfg.filesPerCommit} changed files`);
      const up = await buildUpstream(repos, home, cfg);
      log(
        `history: built in ${fmt(up.buildMs)} ms (${up.files} files at the tip, pack ${fmt(up.packBytes / 1024)} KiB, ${JSON.stringify(up.changes)})`,
      );
      const server = await startGitHttpServer(repos);
      open.server = server;
      const sides: Side[] = [];
      for (const mode of modes) {
        const db = await openBenchDatabase(log);
        open.dbs.push(db);
        const dataDir = join(root, `gateway-${mode}`);
        mkdirSync(dataDir, { recursive: true });
        const gateway = await startBenchGateway({
          databaseUrl: db.url,
          dataDir,
          log,
          env: { GATEWAY_FACADE_HISTORY: mode, GATEWAY_LOG_LEVEL: 'info' },
        });
        open.gateways.push(gateway);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        open.clients.push(client);
        const postmaster = await postmasterPid(client);
        const meter = new CpuMeter(() => ({ gateway: gateway.pid, upstream: server.pid }), postmaster);
        const side: Side = { mode, gateway, api: devSession(gateway.url, 'root'), meter };
        sides.push(side);
        // Warm-up: a one-commit copy, so one-time set-up (connectors, parsers) is in no measured run.
        const warm = join(repos, `warmup-${mode}.git`);
        cpSync(up.bare, warm, { recursive: true });
        await gitIn(warm, home, 'update-ref', 'refs/heads/main', up.first);
        await side.api.expect(
          'register warm-up',
          201,
          side.api.post('/api/v1/marketplaces', {
            name: `warmup-${mode}`,
            url: `${server.baseUrl}/warmup-${mode}.git`,
          }),
        );
        await side.api.expect('warm-up ingest', 201, side.api.post(`/api/v1/marketplaces/warmup-${mode}/ingest`));
      }
      const results: Record<Mode, RunPair[]> = { upstream: [], vetted: [] };
      for (let run = 1; run <= cfg.runs; run++)
        for (const side of run % 2 === 1 ? sides : [...sides].reverse())
          results[side.mode].push(await measureRun(side, server, up, repos, home, run));

      log('history: timing the history read and the secrets scan in this process');
      const apart = await breakdown(up, home, cfg.runs);
      const med = (mode: Mode, pick: (r: RunPair) => number) => median(results[mode].map(pick));
      const firstUp = med('upstream', (r) => r.first.ms);
      const firstVetted = med('vetted', (r) => r.first.ms);
      const nextUp = med('upstream', (r) => r.next.ms);
      const nextVetted = med('vetted', (r) => r.next.ms);
      const upRun = results.upstream[0]!.first.history;
      const figures = [
        figure(
          'first-upstream',
          'first ingest, history upstream (history scan)',
          firstUp,
          'ms',
          undefined,
          `median of ${cfg.runs}`,
        ),
        figure(
          'first-vetted',
          'first ingest, history vetted (no history scan)',
          firstVetted,
          'ms',
          undefined,
          `median of ${cfg.runs}`,
        ),
        figure(
          'first-extra',
          'cost of the history scan (first ingest, difference of medians)',
          firstUp - firstVetted,
          'ms',
        ),
        figure('first-ratio', 'first ingest, upstream ÷ vetted', firstUp / firstVetted, '×'),
        figure('next-upstream', 'ingest after one new commit, history upstream', nextUp, 'ms'),
        figure('next-vetted', 'ingest after one new commit, history vetted', nextVetted, 'ms'),
        figure('read', 'history read alone (readNewHistory, in process)', apart.readNewHistoryMs, 'ms'),
        figure('scan', 'secrets scan of the history alone (in process)', apart.secretsScanMs, 'ms'),
      ];
      const phase = (mode: Mode, which: 'first' | 'next') =>
        results[mode].map((r) => {
          const x = r[which];
          return `${fmt(x.ms)} ms (history ${x.history.commits ?? '-'} commits / ${x.history.blobs ?? '-'} blobs${
            x.history.phasesMs
              ? `; tree chain ${x.history.phasesMs.treeChain}, history read ${x.history.phasesMs.historyRead}, scan + record ${x.history.phasesMs.scanAndRecord} ms`
              : ''
          }; git: ${Object.entries(x.gitMs)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([k, v]) => `${k} ${fmt(v)}`)
            .join(', ')} ms; load ${x.load[0]}→${x.load[1]}, machine ${x.machineBusyPercent} % busy)`;
        });
      const report = {
        benchmark: 'history',
        date: new Date().toISOString(),
        machine: machine(),
        config: cfg,
        upstream: {
          commits: cfg.commits,
          filesAtTip: up.files,
          packBytes: up.packBytes,
          changes: up.changes,
          buildMs: round(up.buildMs, 0),
        },
        figures,
        runs: results,
        inProcess: apart,
      };
      const m = report.machine;
      const md = [
        '# History scan before approval (gateway.facade.history)',
        '',
        `${report.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.platform} ${m.release} · Node ${m.node}`,
        '',
        'Generated by `BENCH_ONLY=history npm run bench` (bench/history.ts): two gateways in their own processes',
        '(fresh databases), one per history mode, ingesting fresh registrations of the same generated upstream over',
        '`git http-backend` on loopback. `POST /api/v1/marketplaces/{name}/ingest` answers after vetting, so its time',
        'includes the fetch, the capture, the chain over the tree and, in mode `upstream`, the history verdict.',
        '',
        figureMarkdown(figures),
        '',
        `Upstream: ${fmt(cfg.commits)} commits, ${cfg.filesPerCommit} files changed per commit (${Object.entries(
          up.changes,
        )
          .map(([k, v]) => `${fmt(v)} ${k}`)
          .join(
            ', ',
          )}), ${up.files} files at the tip, pack ${fmt(up.packBytes / 1024)} KiB; built with one \`git fast-import\` in ${fmt(up.buildMs)} ms.`,
        `Settings: BENCH_HISTORY_COMMITS=${cfg.commits}, BENCH_HISTORY_FILES_PER_COMMIT=${cfg.filesPerCommit}, BENCH_HISTORY_RUNS=${cfg.runs} (modes interleaved; each gateway warmed up on a one-commit copy first).`,
        '',
        `History the first approval would expose (mode \`upstream\`, from the gateway's log): ${upRun.commits} commits, ${upRun.blobs} blobs (truncated: ${upRun.truncated}).`,
        '',
        '## Runs',
        '',
        'First ingest (the whole history new), each run:',
        '',
        ...modes.map((mode) => `- ${mode}: ${phase(mode, 'first').join('; ')}`),
        '',
        `Approval until the marketplace serves the snapshot (the publication; a 503 projection-lag answer counts as recorded): ${modes
          .map(
            (mode) =>
              `${mode} ${results[mode].map((r) => `${fmt(r.approval.servedAfterMs)} ms (${r.approval.status})`).join(', ')}`,
          )
          .join('; ')}.`,
        '',
        'After approving that snapshot, one new upstream commit, ingested again:',
        '',
        ...modes.map((mode) => `- ${mode}: ${phase(mode, 'next').join('; ')}`),
        '',
        'The new commit brings blobs that are all in its own tree, which the tree scan reads: the history read lists',
        'one commit and reads no blob, so the verdict is left out.',
        '',
        '## Where the history scan goes (in this process, on the upstream repository)',
        '',
        `readNewHistory (nothing served): ${fmt(apart.readNewHistoryMs)} ms for ${apart.commits} commits and ${apart.blobs} blobs (${fmt(apart.bytes / 1024)} KiB);` +
          ` of which \`git log -m --raw\` alone ${fmt(apart.gitLogMs)} ms and \`ls-tree\` of the tip ${fmt(apart.lsTreeMs)} ms, the rest \`cat-file\` and parsing.`,
        `Secrets connector over those blobs: ${fmt(apart.secretsScanMs)} ms (${apart.findings} findings). Medians of ${cfg.runs}.`,
        '',
        'Load: the 1-minute load average before→after each run is listed with it (2 cores, shared with other work).',
        '',
      ].join('\n');
      const written = writeResultFiles('history', report, md);
      log(`history:\n${figureTable(figures)}\nwritten to ${written.md}`);
    },
    async () => {
      for (const client of open.clients) await client.end().catch(() => {});
      for (const gateway of open.gateways.reverse()) await gateway.close().catch(() => {});
      await open.server?.close().catch(() => {});
      for (const db of open.dbs) await db.close().catch(() => {});
    },
  );
}
