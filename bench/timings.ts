// Time bounds that tests used to assert (tests assert behaviour, never a duration, which depends on the
// machine): the secrets connector over a 2,000-file marketplace (was "scans in seconds", at most 20 s),
// and how soon ping() rejects when EventStoreDB is unreachable (was "within seconds", at most 6 s;
// /actuator/health relies on it). Each is measured BENCH_TIMINGS_RUNS times after a warm-up; the median
// is the figure, with the bound as its goal.
import { secretsConnector } from '../src/adapters/vetting/secrets.connector.ts';
import { EventStoreDbEventStore } from '../src/adapters/eventstore/eventstoredb/eventstoredb-event-store.ts';
import type { ScanFile, ScanInput } from '../src/domain/kernel/findings.ts';
import { envInt, log } from './env.ts';
import { figure, figureMarkdown, figureTable, machine, median, writeResultFiles, type Figure } from './report.ts';

/** The marketplace of the former test: skills and scripts over 40 plugins, one planted credential. */
function marketplace(files: number): ScanInput {
  const lines = (text: readonly string[], times: number) => `${text.join('\n')}\n`.repeat(times);
  const markdown = lines(
    [
      '# Skill',
      '',
      'This skill formats code. Run `npm test` first.',
      '',
      '## Steps',
      '',
      '1. Read the file.',
      '2. Format it.',
    ],
    30,
  );
  const code = lines(
    [
      'import { readFile } from "node:fs/promises";',
      'export async function load(path) {',
      '  return JSON.parse(await readFile(path, "utf8"));',
      '}',
    ],
    60,
  );
  const texts: Array<[string, string]> = [];
  for (let i = 0; i < files; i += 1) {
    texts.push(
      i % 2 === 0
        ? [`plugins/p${i % 40}/skills/s${i}/SKILL.md`, markdown]
        : [`plugins/p${i % 40}/scripts/s${i}.js`, code],
    );
  }
  // Assembled at run time so that this file does not itself look like a leak.
  texts.push([
    'plugins/p7/.env',
    `aws_secret_access_key=${['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYZ9q8w7e6r5t4y3u2i1'].join('/').slice(0, 40)}\n`,
  ]);
  const scanFiles: ScanFile[] = texts.map(([path, text]) => ({
    path,
    size: Buffer.byteLength(text),
    text,
    binary: false,
    oversized: false,
  }));
  return {
    files: scanFiles,
    byPath: new Map(scanFiles.map((f) => [f.path, f])),
    maxFileBytes: 1_048_576,
    license: { allow: [], ban: [] },
  };
}

async function timed(runs: number, work: () => Promise<void>): Promise<number[]> {
  await work(); // warm-up: module initialisation and the JIT are not what the bound is about
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times;
}

export async function timingsBenchmark(): Promise<void> {
  const runs = envInt('BENCH_TIMINGS_RUNS', 3, 1);
  const files = envInt('BENCH_TIMINGS_SECRETS_FILES', 2000, 1);
  const input = marketplace(files);
  const subject = { snapshotId: 1, marketplace: 'acme', sha: 'a'.repeat(40) };
  log(`timings: secrets connector over ${input.files.length} files`);
  const scanMs = await timed(runs, async () => {
    const report = await secretsConnector.scan({ ...input }, subject, new AbortController().signal);
    if (report.findings.length !== 1)
      throw new Error(`expected the one planted credential, found ${report.findings.length}`);
  });
  log('timings: ping of an unreachable EventStoreDB');
  const pingMs = await timed(runs, async () => {
    const store = await EventStoreDbEventStore.connect('esdb://127.0.0.1:1?tls=false');
    try {
      const answered = await store.ping().then(
        () => true,
        () => false,
      );
      if (answered) throw new Error('ping of 127.0.0.1:1 answered');
    } finally {
      await store.close();
    }
  });
  const figures: Figure[] = [
    figure(
      'secrets-scan',
      `secrets connector, ${input.files.length} files`,
      median(scanMs) / 1000,
      's',
      { atMost: 20, unit: 's' },
      `median of ${runs}: ${Math.round(input.files.length / (median(scanMs) / 1000))} files/s`,
    ),
    figure(
      'eventstoredb-ping-unreachable',
      'EventStoreDB ping rejects when unreachable',
      median(pingMs) / 1000,
      's',
      { atMost: 6, unit: 's' },
      `median of ${runs}; max ${(Math.max(...pingMs) / 1000).toFixed(2)} s`,
    ),
  ];
  const report = {
    benchmark: 'timings',
    date: new Date().toISOString(),
    machine: machine(),
    runs,
    scanMs,
    pingMs,
    figures,
  };
  process.stdout.write(`\ntimings\n${figureTable(figures)}\n\n`);
  const written = writeResultFiles(
    'timings',
    report,
    `# Time bounds\n\nBounds the tests no longer assert; median of ${runs} runs after a warm-up.\n\n` +
      `${figureMarkdown(figures)}\n`,
  );
  log(`wrote ${written.json} and ${written.md}`);
}
