// Helpers of the large-marketplace benchmark (bench/large-marketplace.ts): the binaries and large files the
// generated marketplace gains, the background load (git clients fetching through the facade, a health
// prober, the load average), each sample filed under the phase it started in, and cheap extra snapshots.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { devSession } from './bench-gateway.ts';
import { seededRandom } from './events.ts';
import { sleep } from './env.ts';
import { gitClient, gitIn, TextMaker } from './git-repos.ts';
import { latencies } from './report.ts';

type Api = ReturnType<typeof devSession>;
const mib = 1024 * 1024;

/** A PNG-like blob: the PNG signature and an IHDR chunk, then incompressible bytes. */
function pngLike(bytes: number): Buffer {
  const head = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  return Buffer.concat([head, randomBytes(bytes - head.length)]);
}

/**
 * Adds three PNG-like screenshots and two files of about 2 MiB (a bundled script and a JSON data file)
 * to plugins of the marketplace built by buildMarketplaceRepo under `root`, in one more commit pushed to
 * its bare repository; answers the new tip and what was added.
 */
export async function addBinariesAndLargeFiles(
  root: string,
  name: string,
  home: string,
): Promise<{ tip: string; added: Record<string, number> }> {
  const work = join(root, `${name}-work`);
  const manifest = JSON.parse(readFileSync(join(work, '.claude-plugin', 'marketplace.json'), 'utf8')) as {
    plugins: Array<{ source: string }>;
  };
  const sources = manifest.plugins.map((plugin) => plugin.source.replace(/^\.\//, ''));
  const at = (i: number) => sources[Math.min(sources.length - 1, i)]!;
  const text = new TextMaker(seededRandom(11));
  let bundle = '#!/usr/bin/env node\n// Bundled by esbuild: the MCP server and its dependencies in one file.\n';
  while (bundle.length < 2 * mib) bundle += text.script(64 * 1024, 'js').replace(/^import .*\n/, '');
  const rows: string[] = [];
  let size = 0;
  while (size < 2 * mib) {
    const row = `    { "id": ${rows.length}, "term": "${text.word()}", "gloss": "${text.sentence()}" }`;
    rows.push(row);
    size += row.length + 2;
  }
  const files: Record<string, Buffer> = {
    [`${at(0)}/assets/screenshot-overview.png`]: pngLike(180 * 1024),
    [`${at(1)}/assets/screenshot-settings.png`]: pngLike(240 * 1024),
    [`${at(2)}/assets/diagram.png`]: pngLike(120 * 1024),
    [`${at(3)}/dist/server.js`]: Buffer.from(bundle),
    [`${at(4)}/data/glossary.json`]: Buffer.from(`{\n  "entries": [\n${rows.join(',\n')}\n  ]\n}\n`),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  await gitIn(work, home, 'add', '-A');
  await gitIn(work, home, 'commit', '--quiet', '-m', 'Screenshots, the bundled MCP server and the glossary');
  await gitIn(work, home, 'push', '--quiet', join(root, `${name}.git`), 'HEAD:refs/heads/main');
  await gitIn(join(root, `${name}.git`), home, 'repack', '-a', '-d', '--quiet');
  return {
    tip: await gitIn(work, home, 'rev-parse', 'HEAD'),
    added: Object.fromEntries(Object.entries(files).map(([path, content]) => [path, content.length])),
  };
}

export type Latencies = ReturnType<typeof latencies> & { count: number };
const summary = (samples: number[]): Latencies => ({
  ...latencies(Float64Array.from(samples)),
  count: samples.length,
});

/** Samples filed under the phase that was current when each started. */
export class Phased {
  private current = 'setup';
  private readonly byPhase = new Map<string, Map<string, number[]>>();
  private readonly counts = new Map<string, Record<string, number>>();

  enter(phase: string): void {
    this.current = phase;
  }

  get phase(): string {
    return this.current;
  }

  add(series: string, value: number, phase = this.current): void {
    const series_ = this.byPhase.get(phase) ?? new Map<string, number[]>();
    this.byPhase.set(phase, series_);
    const values = series_.get(series) ?? [];
    values.push(value);
    series_.set(series, values);
  }

  count(what: string, phase = this.current): void {
    const counts = this.counts.get(phase) ?? {};
    counts[what] = (counts[what] ?? 0) + 1;
    this.counts.set(phase, counts);
  }

  values(phase: string, series: string): number[] {
    return this.byPhase.get(phase)?.get(series) ?? [];
  }

  latencies(phase: string, series: string): Latencies {
    return summary(this.values(phase, series));
  }

  countsOf(phase: string): Record<string, number> {
    return this.counts.get(phase) ?? {};
  }
}

export type Background = Readonly<{ stop(): Promise<void> }>;

/**
 * `clients` git clients, each cloning `url` and then running `git fetch` (nothing new) back to back:
 * latencies in series `fetch`, outcomes counted as `fetch ok` / `fetch failed`.
 */
export async function startFetchClients(
  phased: Phased,
  home: string,
  token: string,
  url: string,
  dirs: readonly string[],
  onError: (message: string) => void,
): Promise<Background> {
  const git = gitClient(home, token);
  await Promise.all(dirs.map((dir) => git.clone(url, dir)));
  let running = true;
  const loops = dirs.map(async (dir) => {
    while (running) {
      const phase = phased.phase;
      try {
        phased.add('fetch', await git.fetch(dir), phase);
        phased.count('fetch ok', phase);
      } catch (error) {
        phased.count('fetch failed', phase);
        onError(error instanceof Error ? error.message : String(error));
        await sleep(100);
      }
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** GET /actuator/health every `everyMs` (series `health`, statuses counted), and the 1-minute load average each second. */
export function startProber(phased: Phased, baseUrl: string, everyMs: number): Background {
  let running = true;
  const prober = (async () => {
    while (running) {
      const phase = phased.phase;
      const started = performance.now();
      try {
        const response = await fetch(`${baseUrl}/actuator/health`);
        await response.arrayBuffer();
        phased.add('health', performance.now() - started, phase);
        phased.count(`health ${response.status}`, phase);
      } catch {
        phased.add('health', performance.now() - started, phase);
        phased.count('health failed', phase);
      }
      await sleep(everyMs);
    }
  })();
  const load = setInterval(() => phased.add('load1', loadavg()[0]!), 1000);
  return {
    async stop() {
      running = false;
      clearInterval(load);
      await prober;
    },
  };
}

/** Phase changes of a running ingest (GET /api/v1/marketplaces/{name}/ingest every `everyMs`), ms after `started`. */
export function followIngest(api: Api, name: string, started: number, everyMs = 250) {
  const phases: Array<{ phase: string; atMs: number; files: unknown; connectors: unknown }> = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const answer = await api.get(`/api/v1/marketplaces/${name}/ingest`).catch(() => null);
      if (answer?.status === 200) {
        const phase = String(answer.body.phase);
        const last = phases.at(-1);
        const connector = (answer.body.connectors as { current?: string } | null)?.current ?? null;
        const key = connector ? `${phase}: ${connector}` : phase;
        if (last?.phase !== key)
          phases.push({
            phase: key,
            atMs: Math.round(performance.now() - started),
            files: answer.body.files,
            connectors: answer.body.connectors,
          });
      }
      await sleep(everyMs);
    }
  })();
  return {
    phases,
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * Extra snapshots, cheaply: `marketplaces` registrations of one tiny upstream (`<root>/<name>.git`, built by
 * buildMarketplaceRepo, its work tree beside it), then rounds of one upstream commit and an ingest of every
 * registration, until `wanted` snapshots are held or `seconds` have passed. Answers how many were made.
 */
export async function makeSnapshots(
  api: Api,
  upstreamUrl: string,
  root: string,
  name: string,
  home: string,
  options: Readonly<{ wanted: number; marketplaces: number; seconds: number }>,
): Promise<{ made: number; rounds: number; ms: number; ingestMs: number[] }> {
  const started = performance.now();
  const work = join(root, `${name}-work`);
  const names = Array.from({ length: options.marketplaces }, (_, i) => `${name}-${i}`);
  for (const marketplace of names)
    await api.expect('register', 201, api.post('/api/v1/marketplaces', { name: marketplace, url: upstreamUrl }));
  let made = 0;
  let rounds = 0;
  const ingestMs: number[] = [];
  while (made < options.wanted && performance.now() - started < options.seconds * 1000) {
    if (rounds > 0) {
      writeFileSync(join(work, 'CHANGELOG.md'), `# Changes\n\nRound ${rounds}.\n`);
      await gitIn(work, home, 'add', '-A');
      await gitIn(work, home, 'commit', '--quiet', '-m', `Round ${rounds}`);
      await gitIn(work, home, 'push', '--quiet', join(root, `${name}.git`), 'HEAD:refs/heads/main');
    }
    const batch = names.slice(0, options.wanted - made);
    await Promise.all(
      batch.map(async (marketplace) => {
        const began = performance.now();
        await api.expect('ingest', 201, api.post(`/api/v1/marketplaces/${marketplace}/ingest`));
        ingestMs.push(performance.now() - began);
      }),
    );
    made += batch.length;
    rounds++;
  }
  return { made, rounds, ms: performance.now() - started, ingestMs };
}

/**
 * Approves a snapshot (an admin's override when vetting blocks it; a 503 projection-lag answer means it was
 * recorded) and waits until the marketplace serves its sha.
 */
export async function approveSnapshot(api: Api, name: string, snapshotId: number, sha: string): Promise<void> {
  const started = performance.now();
  let answer = await api.post(`/api/v1/snapshots/${snapshotId}/approve`);
  if (answer.status === 409 && answer.text.includes('vetting-blocked'))
    answer = await api.post(`/api/v1/snapshots/${snapshotId}/approve?overrideReason=benchmark`);
  if (answer.status !== 200 && !(answer.status === 503 && answer.text.includes('projection-lag')))
    throw new Error(`approve ${snapshotId}: ${answer.status} ${answer.text.slice(0, 500)}`);
  for (;;) {
    const view = await api.get('/api/v1/marketplaces');
    const listed =
      view.status === 200 ? (JSON.parse(view.text) as Array<{ name: string; servedSha: string | null }>) : [];
    if (listed.find((m) => m.name === name)?.servedSha === sha) return;
    if (performance.now() - started > 60_000) throw new Error(`${name}: ${sha} not served 60 s after approval`);
    await sleep(50);
  }
}
