// Vetting throughput: a generated 2,000-file marketplace (BENCH_VETTING_PLUGINS ×
// BENCH_VETTING_FILES_PER_PLUGIN files) read from its bare repository as the gateway reads a pinned
// tree, then the shared plugin layout, every built-in connector, and the whole chain, run BENCH_VETTING_RUNS
// times after one warm-up run (the license connector prepares the SPDX texts once per process). Figures:
// files per second per connector and for the chain (median run), and the tree read; the CPU time of each
// median is given beside it, since the wall time of a loaded machine says little.
//
// The content is what published plugins ship (bench/vetting-content.ts: hook scripts in shell, Python and
// JavaScript, SKILL.md with references and helper scripts, commands, agents, MCP configurations, licences).
// The content the figures used to be measured on (bench/git-repos.ts, the facade benchmark's: Markdown
// and scripts that no hook runs, no MCP configuration) is measured too, as "earlier content", so that the
// earlier figures can still be compared.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readScanInput } from '../src/adapters/git/tree-reader.ts';
import { runChain } from '../src/adapters/vetting/chain.ts';
import type { Connector } from '../src/adapters/vetting/connector.ts';
import { builtInConnectors } from '../src/adapters/vetting/registry.ts';
import { readLayout } from '../src/domain/plugin/layout.ts';
import type { ScanInput } from '../src/domain/kernel/findings.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { buildMarketplaceRepo, type BuiltRepo, type PluginContent } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, machine, median, writeResultFiles, type Figure } from './report.ts';
import { realisticPluginFiles } from './vetting-content.ts';

/** The whole chain's target on the benchmark machine (2 cores), with room for the parsers the hooks connector is to gain. */
const chainGoal = { atLeast: 8000, unit: 'files/s' };
const settings = { maxFileBytes: 1_048_576, license: { allow: [], ban: ['GPL-3.0-only'] } };

type Timed = Readonly<{ wallMs: number; cpuMs: number }>;

/** Wall and CPU time of one call (CPU: this process, every thread). */
async function timed<T>(work: () => Promise<T> | T): Promise<Timed & { result: T }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, result };
}

/** The median run by wall time, and the median CPU time. */
const medians = (runs: readonly Timed[]) => ({
  wallMs: median(runs.map((run) => run.wallMs)),
  cpuMs: median(runs.map((run) => run.cpuMs)),
});

const detailOf = (runs: number, m: Timed, extra = '') =>
  `median of ${runs}: ${m.wallMs.toFixed(1)} ms (CPU ${m.cpuMs.toFixed(1)} ms)${extra}`;

/** Every figure of one marketplace, ids and labels prefixed for the earlier content. */
async function measure(
  repo: BuiltRepo,
  connectors: readonly Connector[],
  runs: number,
  earlier: boolean,
): Promise<{ figures: Figure[]; perConnector: Record<string, { medianMs: number; cpuMs: number; findings: number }> }> {
  const id = (name: string) => (earlier ? `earlier-${name}` : name);
  const label = (text: string) => (earlier ? `${text} (earlier content)` : text);
  const reads: Timed[] = [];
  let input: ScanInput = await readScanInput(repo.bare, repo.tip, settings);
  for (let i = 0; i < runs; i++) {
    const read = await timed(() => readScanInput(repo.bare, repo.tip, settings));
    input = read.result;
    reads.push(read);
  }
  const files = input.files.length;
  const read = medians(reads);
  const figures: Figure[] = [
    figure(
      id('tree-read'),
      label('pinned tree read (ls-tree + cat-file --batch)'),
      files / (read.wallMs / 1000),
      'files/s',
      undefined,
      detailOf(runs, read, ` for ${files} files`),
    ),
  ];
  const layouts: Timed[] = [];
  readLayout(input.byPath);
  for (let i = 0; i < runs; i++) layouts.push(await timed(() => readLayout(input.byPath)));
  const layout = medians(layouts);
  figures.push(
    figure(
      id('layout'),
      label('plugin layout read (shared by manifest, hooks, mcp, instructions)'),
      files / (layout.wallMs / 1000),
      'files/s',
      undefined,
      detailOf(runs, layout),
    ),
  );
  const subject = { snapshotId: 1, marketplace: 'upstream', sha: repo.tip };
  const perConnector: Record<string, { medianMs: number; cpuMs: number; findings: number }> = {};
  for (const connector of connectors) {
    const times: Timed[] = [];
    let findings = 0;
    await connector.scan({ ...input }, subject, new AbortController().signal); // warm-up
    for (let i = 0; i < runs; i++) {
      // A fresh input object each run: the plugin layout the structural connectors share is cached
      // per input, so each figure here includes reading it (in a chain only the first pays).
      const fresh = { ...input };
      const run = await timed(() => connector.scan(fresh, subject, new AbortController().signal));
      findings = run.result.findings.length;
      times.push(run);
    }
    const m = medians(times);
    perConnector[connector.name] = { medianMs: m.wallMs, cpuMs: m.cpuMs, findings };
    figures.push(
      figure(
        id(`connector-${connector.name}`),
        label(`connector ${connector.name}`),
        files / (m.wallMs / 1000),
        'files/s',
        undefined,
        detailOf(runs, m, `; ${findings} findings`),
      ),
    );
    log(`vetting${earlier ? ' (earlier content)' : ''}: ${connector.name} ${m.wallMs.toFixed(1)} ms`);
  }
  const chains: Timed[] = [];
  for (let i = 0; i < runs; i++)
    chains.push(await timed(() => runChain(connectors, { ...input }, subject, { mode: 'run-all', timeoutMs: 60_000 })));
  const chain = medians(chains);
  figures.push(
    figure(
      id('chain'),
      label(`whole chain (run-all, ${connectors.length} connectors)`),
      files / (chain.wallMs / 1000),
      'files/s',
      earlier ? undefined : chainGoal,
      detailOf(runs, chain),
    ),
    figure(
      id('chain-with-read'),
      label('whole chain including the tree read'),
      files / ((chain.wallMs + read.wallMs) / 1000),
      'files/s',
      undefined,
      'what an ingestion spends on vetting',
    ),
  );
  return { figures, perConnector };
}

export async function vettingBenchmark(): Promise<void> {
  const cfg = {
    plugins: envInt('BENCH_VETTING_PLUGINS', 40, 1),
    filesPerPlugin: envInt('BENCH_VETTING_FILES_PER_PLUGIN', 50, 12),
    runs: envInt('BENCH_VETTING_RUNS', 5, 1),
  };
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-vetting-'));
  const cleanup = async () => rmSync(root, { recursive: true, force: true });
  await withInterruptCleanup(cleanup, async () => {
    try {
      const build = (name: string, content?: PluginContent) => {
        log(`vetting: building ${name}, ${cfg.plugins} plugins × ${cfg.filesPerPlugin} files`);
        const shape = { plugins: cfg.plugins, filesPerPlugin: cfg.filesPerPlugin, commits: 1, seed: 7 };
        return buildMarketplaceRepo(root, name, content ? { ...shape, content } : shape, root);
      };
      const repo = await build('upstream', realisticPluginFiles);
      const earlierRepo = await build('earlier');
      const connectors = builtInConnectors({ http: { url: null, timeoutMs: 20_000 } });
      const current = await measure(repo, connectors, cfg.runs, false);
      const earlier = await measure(earlierRepo, connectors, cfg.runs, true);
      const files = repo.files;
      const figures = [...current.figures, ...earlier.figures];
      const report = {
        benchmark: 'vetting',
        date: new Date().toISOString(),
        machine: machine(),
        loadAverage: loadavg(),
        repo: { files, bytes: repo.bytes, content: 'published-plugin shape (bench/vetting-content.ts)' },
        earlierRepo: {
          files: earlierRepo.files,
          bytes: earlierRepo.bytes,
          content: 'earlier content (bench/git-repos.ts)',
        },
        runs: cfg.runs,
        perConnector: current.perConnector,
        earlierPerConnector: earlier.perConnector,
        figures,
      };
      process.stdout.write(`\nvetting (${files} files)\n${figureTable(figures)}\n\n`);
      const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
      const written = writeResultFiles(
        'vetting',
        report,
        [
          '# Vetting throughput',
          '',
          `${files} files, ${mib(repo.bytes)} MiB, shaped like published plugins (bench/vetting-content.ts): hook scripts in`,
          'shell, Python and JavaScript that hooks.json runs, SKILL.md with references and helper scripts, commands,',
          `agents, MCP configurations, licences. Median of ${cfg.runs} runs after a warm-up; the CPU time of each median`,
          'is listed under the table (on a loaded machine the wall time says little).',
          '',
          `The lines marked "earlier content" are measured on the content the figures used to be measured on`,
          `(${earlierRepo.files} files, ${mib(earlierRepo.bytes)} MiB: Markdown and scripts no hook runs, no MCP configuration). Last recorded`,
          'on it before the connectors were made faster: manifest 27,970, secrets 7,316, hooks 8,055, mcp 58,890,',
          'instructions 16,360 files/s; whole chain 2,651 files/s, 2,027 with the tree read.',
          '',
          `Load average when measured: ${report.loadAverage.map((n) => n.toFixed(2)).join(', ')} on ${report.machine.cores} cores.`,
          '',
          figureMarkdown(figures),
          '',
          ...figures.map((f) => `- ${f.label}: ${f.detail ?? ''}`),
          '',
        ].join('\n'),
      );
      log(`wrote ${written.json} and ${written.md}`);
    } finally {
      await cleanup();
    }
  });
}
