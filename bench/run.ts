// npm run bench: every benchmark, one after the other (never two at once), each writing its
// figures to bench/results/. A measurement, not a test: exits 0 when a figure is below its target,
// non-zero only on an error.
//
//   BENCH_ONLY   comma-separated subset of: eventstore, facade, facade-hostile, audit, holdings, vetting, timings,
//                externals, vetting-corpus, real-marketplace (needs the npm registry), adoption, webhooks,
//                audit-sink, retention, portal, rate-limit, object-store, replicas, audit-chain, history,
//                large-marketplace, approve (default: all, in that order)
//
// eventstore (bench/eventstore.ts): BENCH_EVENTS, BENCH_APPENDS, BENCH_CONCURRENCY, BENCH_BATCH_SIZE
// facade (bench/facade.ts): BENCH_CLONE_PLUGINS, BENCH_CLONE_FILES_PER_PLUGIN, BENCH_CLONE_COMMITS,
//   BENCH_CLONES, BENCH_CLONE_WARMUP, BENCH_FETCH_CLIENTS, BENCH_FETCH_SECONDS, BENCH_FETCH_PLAIN_SECONDS
// facade-hostile (bench/facade-hostile.ts): BENCH_HOSTILE_ATTACKERS, BENCH_HOSTILE_SECONDS, BENCH_HOSTILE_PROBE_MS
// audit (bench/audit.ts): BENCH_LEDGER_ENTRIES, BENCH_LEDGER_FILL, BENCH_AUDIT_REQUESTS, BENCH_EXPORT_LIMIT
// holdings (bench/holdings.ts): BENCH_HOLDINGS_CALLERS, BENCH_HOLDINGS_PAIRS, BENCH_HOLDINGS_REQUESTS,
//   BENCH_HOLDINGS_WARMUP, BENCH_HOLDINGS_MARKETPLACES, BENCH_HOLDINGS_SNAPSHOTS
// vetting (bench/vetting.ts): BENCH_VETTING_PLUGINS, BENCH_VETTING_FILES_PER_PLUGIN, BENCH_VETTING_RUNS
// vetting-corpus (bench/vetting-corpus.ts): precision and recall of each connector on test/fixtures/vetting-corpus
//   (no settings; figures to bench/results/vetting-corpus.{json,md})
// real-marketplace (bench/real-marketplace.ts): HIGH/CRITICAL findings of every connector on pinned npm packages of
//   Claude Code content laid out as one marketplace: REAL_MARKETPLACE_DIR (scratch directory for the tarballs)
// timings (bench/timings.ts, the time bounds tests no longer assert): BENCH_TIMINGS_RUNS, BENCH_TIMINGS_SECRETS_FILES
// externals (bench/externals.ts): BENCH_EXTERNALS_SOURCES, BENCH_EXTERNALS_REPOS, BENCH_EXTERNALS_PLUGINS_PER_REPO,
//   BENCH_EXTERNALS_FILES_PER_PLUGIN, BENCH_EXTERNALS_COMMITS, BENCH_EXTERNALS_CONCURRENCY, BENCH_EXTERNALS_REPEATS,
//   BENCH_EXTERNALS_BASELINE
// adoption (bench/adoption.ts): BENCH_ADOPTION_FETCHES, BENCH_ADOPTION_PRINCIPALS, BENCH_ADOPTION_MARKETPLACES,
//   BENCH_ADOPTION_PER_PRINCIPAL, BENCH_ADOPTION_REQUESTS, BENCH_ADOPTION_WARMUP
// webhooks (bench/webhooks.ts): BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_RATE (events per second),
//   BENCH_WEBHOOK_POLL_INTERVAL (gateway.webhooks.poll-interval, default 1s), BENCH_WEBHOOK_BATCH_SIZE
// audit-sink (bench/audit-sink.ts): BENCH_SINK_ENTRIES (default 100000), BENCH_SINK_BATCH_SIZES (comma-separated
//   gateway.audit-export.batch-size values, one gateway each, default 500,5000), BENCH_SINK_POLL_INTERVAL
//   (gateway.audit-export.poll-interval and gateway.webhooks.poll-interval, default 10ms), BENCH_SINK_TIMEOUT_SECONDS
// retention (bench/retention.ts): BENCH_RETENTION_MARKETPLACES, BENCH_RETENTION_SNAPSHOTS, BENCH_RETENTION_PURGE,
//   BENCH_RETENTION_ELIGIBLE, BENCH_RETENTION_PARKED, BENCH_RETENTION_FILE_KB
// portal (bench/portal.ts, needs Chromium): BENCH_PORTAL_MARKETPLACES (500), BENCH_PORTAL_LEDGER_ENTRIES (1000000),
//   BENCH_PORTAL_RUNS (10)
// rate-limit (bench/rate-limit.ts): BENCH_RATE_LIMIT_CLIENTS (8), BENCH_RATE_LIMIT_SECONDS (10), BENCH_RATE_LIMIT_ROUNDS (4)
// replicas (bench/replicas.ts): BENCH_REPLICAS_APPROVALS (10), BENCH_REPLICAS_FAILOVERS (3),
//   BENCH_REPLICAS_STORAGE (shared-directory, or object-store on s3rver: results in replicas-object-store.{json,md})
// object-store (bench/object-store.ts): BENCH_OS_PLUGINS, BENCH_OS_FILES_PER_PLUGIN, BENCH_OS_COMMITS, BENCH_OS_CLONES (10),
//   BENCH_OS_APPROVALS (5)
// audit-chain (bench/audit-chain.ts): BENCH_CHAIN_ENTRIES (1000000, the export verified), BENCH_CHAIN_PROJECTED
//   (100000, entries projected with and without hashing), BENCH_CHAIN_BATCH (500), BENCH_CHAIN_ROUNDS (7)
// history (bench/history.ts, ingest with and without the history scan, gateway.facade.history upstream / vetted):
//   BENCH_HISTORY_COMMITS (2000), BENCH_HISTORY_FILES_PER_COMMIT (3), BENCH_HISTORY_RUNS (3, the median is the figure)
// large-marketplace (bench/large-marketplace.ts, a 15,000-file ingest and a policy dry run while git clients fetch
//   and health is probed): BENCH_LARGE_PLUGINS (300), BENCH_LARGE_FILES_PER_PLUGIN (50), BENCH_LARGE_CLIENTS (8),
//   BENCH_LARGE_PROBE_MS (100), BENCH_LARGE_IDLE_SECONDS (10), BENCH_LARGE_SNAPSHOTS (500, held for the dry run)
// approve (bench/approve.ts, approval latency from send to answer, and where it goes): BENCH_APPROVE_SIZES
//   (plugins per marketplace, default 1,300), BENCH_APPROVE_FILES_PER_PLUGIN (10), BENCH_APPROVE_ROUNDS (8),
//   BENCH_APPROVE_WARMUP (2), BENCH_APPROVE_ESTATE (0, other served one-plugin marketplaces the catalog also lists)
// all: BENCH_DATABASE_URL (a server instead of an embedded PostgreSQL), BENCH_GATEWAY_LOG_LEVEL,
//   BENCH_GATEWAY_NODE_ARGS (extra node flags for the gateway process, e.g. --cpu-prof),
//   BENCH_KEEP_ON_FAILURE=1 (keep temporary directories and the gateway log after a failure)
import { adoptionBenchmark } from './adoption.ts';
import { approveBenchmark } from './approve.ts';
import { auditBenchmark } from './audit.ts';
import { auditSinkBenchmark } from './audit-sink.ts';
import { auditChainBenchmark } from './audit-chain.ts';
import { log } from './env.ts';
import { eventStoreBenchmark } from './eventstore.ts';
import { externalsBenchmark } from './externals.ts';
import { facadeBenchmark } from './facade.ts';
import { facadeHostileBenchmark } from './facade-hostile.ts';
import { historyBenchmark } from './history.ts';
import { largeMarketplaceBenchmark } from './large-marketplace.ts';
import { holdingsBenchmark } from './holdings.ts';
import { timingsBenchmark } from './timings.ts';
import { vettingBenchmark } from './vetting.ts';
import { vettingCorpusBenchmark } from './vetting-corpus.ts';
import { realMarketplaceBenchmark } from './real-marketplace.ts';
import { portalBenchmark } from './portal.ts';
import { rateLimitBenchmark } from './rate-limit.ts';
import { replicasBenchmark } from './replicas.ts';
import { retentionBenchmark } from './retention.ts';
import { webhooksBenchmark } from './webhooks.ts';
import { objectStoreBenchmark } from './object-store.ts';

const benchmarks = {
  eventstore: eventStoreBenchmark,
  facade: facadeBenchmark,
  'facade-hostile': facadeHostileBenchmark,
  audit: auditBenchmark,
  holdings: holdingsBenchmark,
  vetting: vettingBenchmark,
  timings: timingsBenchmark,
  externals: externalsBenchmark,
  'vetting-corpus': vettingCorpusBenchmark,
  'real-marketplace': realMarketplaceBenchmark,
  adoption: adoptionBenchmark,
  webhooks: webhooksBenchmark,
  'audit-sink': auditSinkBenchmark,
  retention: retentionBenchmark,
  portal: portalBenchmark,
  'rate-limit': rateLimitBenchmark,
  'object-store': objectStoreBenchmark,
  replicas: replicasBenchmark,
  'audit-chain': auditChainBenchmark,
  history: historyBenchmark,
  'large-marketplace': largeMarketplaceBenchmark,
  approve: approveBenchmark,
} as const;
type Name = keyof typeof benchmarks;

function selected(): Name[] {
  const raw = process.env.BENCH_ONLY;
  if (!raw) return Object.keys(benchmarks) as Name[];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names)
    if (!(name in benchmarks))
      throw new Error(`BENCH_ONLY: unknown benchmark '${name}' (known: ${Object.keys(benchmarks).join(', ')})`);
  return names as Name[];
}

async function main(): Promise<void> {
  const started = performance.now();
  for (const name of selected()) {
    const began = performance.now();
    log(`=== ${name} ===`);
    await benchmarks[name]();
    log(`=== ${name}: ${((performance.now() - began) / 1000).toFixed(0)} s ===`);
  }
  log(`all done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
