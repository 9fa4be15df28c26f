// Vetting throughput (issue 5): a generated 2,000-file marketplace (BENCH_VETTING_PLUGINS ×
// BENCH_VETTING_FILES_PER_PLUGIN files) read from its bare repository as the gateway reads a pinned
// tree, then every built-in connector, and the whole chain, run BENCH_VETTING_RUNS times after one
// warm-up run (the license connector prepares the SPDX texts once per process). Figures: files per
// second per connector and for the chain (median run), and the tree read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readScanInput } from '../src/adapters/git/tree-reader.ts';
import { runChain } from '../src/adapters/vetting/chain.ts';
import { builtInConnectors } from '../src/adapters/vetting/registry.ts';
import { envInt, log, withInterruptCleanup } from './env.ts';
import { buildMarketplaceRepo } from './git-repos.ts';
import { figure, figureMarkdown, figureTable, machine, median, writeResultFiles, type Figure } from './report.ts';

export async function vettingBenchmark(): Promise<void> {
  const cfg = {
    plugins: envInt('BENCH_VETTING_PLUGINS', 40, 1),
    filesPerPlugin: envInt('BENCH_VETTING_FILES_PER_PLUGIN', 50, 4),
    runs: envInt('BENCH_VETTING_RUNS', 5, 1),
  };
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-vetting-'));
  const cleanup = async () => rmSync(root, { recursive: true, force: true });
  await withInterruptCleanup(cleanup, async () => {
    try {
      log(`vetting: building a marketplace of ${cfg.plugins} plugins × ${cfg.filesPerPlugin} files`);
      const repo = await buildMarketplaceRepo(
        root,
        'upstream',
        { plugins: cfg.plugins, filesPerPlugin: cfg.filesPerPlugin, commits: 1, seed: 7 },
        root,
      );
      const settings = { maxFileBytes: 1_048_576, license: { allow: [], ban: ['GPL-3.0-only'] } };
      const readMs: number[] = [];
      let input = await readScanInput(repo.bare, repo.tip, settings);
      for (let i = 0; i < cfg.runs; i++) {
        const started = performance.now();
        input = await readScanInput(repo.bare, repo.tip, settings);
        readMs.push(performance.now() - started);
      }
      const files = input.files.length;
      log(`vetting: ${files} files, ${(repo.bytes / 1024 / 1024).toFixed(1)} MiB`);
      const connectors = builtInConnectors({ http: { url: null, timeoutMs: 20_000 } });
      const subject = { snapshotId: 1, marketplace: 'upstream', sha: repo.tip };
      const figures: Figure[] = [
        figure(
          'tree-read',
          'pinned tree read (ls-tree + cat-file --batch)',
          files / (median(readMs) / 1000),
          'files/s',
          undefined,
          `median of ${cfg.runs}: ${median(readMs).toFixed(0)} ms for ${files} files`,
        ),
      ];
      const perConnector: Record<string, { medianMs: number; findings: number }> = {};
      for (const connector of connectors) {
        const times: number[] = [];
        let findings = 0;
        await connector.scan({ ...input }, subject, new AbortController().signal); // warm-up
        for (let i = 0; i < cfg.runs; i++) {
          // A fresh input object each run: the plugin layout the structural connectors share is cached
          // per input, so each figure here includes reading it (in a chain only the first pays).
          const fresh = { ...input };
          const started = performance.now();
          findings = (await connector.scan(fresh, subject, new AbortController().signal)).findings.length;
          times.push(performance.now() - started);
        }
        perConnector[connector.name] = { medianMs: median(times), findings };
        figures.push(
          figure(
            `connector-${connector.name}`,
            `connector ${connector.name}`,
            files / (median(times) / 1000),
            'files/s',
            undefined,
            `median of ${cfg.runs}: ${median(times).toFixed(1)} ms; ${findings} findings`,
          ),
        );
        log(`vetting: ${connector.name} ${median(times).toFixed(1)} ms`);
      }
      const chainTimes: number[] = [];
      for (let i = 0; i < cfg.runs; i++) {
        const started = performance.now();
        await runChain(connectors, { ...input }, subject, { mode: 'run-all', timeoutMs: 60_000 });
        chainTimes.push(performance.now() - started);
      }
      figures.push(
        figure(
          'chain',
          'whole chain (run-all, 6 connectors)',
          files / (median(chainTimes) / 1000),
          'files/s',
          undefined,
          `median of ${cfg.runs}: ${median(chainTimes).toFixed(0)} ms`,
        ),
      );
      figures.push(
        figure(
          'chain-with-read',
          'whole chain including the tree read',
          files / ((median(chainTimes) + median(readMs)) / 1000),
          'files/s',
          undefined,
          'what an ingestion spends on vetting',
        ),
      );
      const report = {
        benchmark: 'vetting',
        date: new Date().toISOString(),
        machine: machine(),
        repo: { files, bytes: repo.bytes },
        runs: cfg.runs,
        perConnector,
        figures,
      };
      process.stdout.write(`\nvetting (${files} files)\n${figureTable(figures)}\n\n`);
      const written = writeResultFiles(
        'vetting',
        report,
        `# Vetting throughput\n\n${files} files, ${(repo.bytes / 1024 / 1024).toFixed(1)} MiB; median of ${cfg.runs} runs after a warm-up.\n\n${figureMarkdown(figures)}\n`,
      );
      log(`wrote ${written.json} and ${written.md}`);
    } finally {
      await cleanup();
    }
  });
}
