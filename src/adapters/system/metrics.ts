import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Every gateway_* metric, documented one by one in docs/metrics.md (a test keeps the two sets equal).
// Labels stay low-cardinality: route patterns, marketplace and sink names (bounded by registration),
// enumerations; never a principal, a URL, a token or a SHA.

/** What the gauges read at scrape time (the composition root supplies it; until then they are empty). */
export type ScrapeSources = Readonly<{
  /** Per projection or reactor: the event store's head minus its checkpoint. */
  projectionLag(): Promise<ReadonlyArray<Readonly<{ projection: string; lag: number }>>>;
  /** Pending webhook deliveries (to subscribers; audit batches are counted per sink). */
  webhookBacklog(): Promise<number>;
  /** Per audit sink: ledger entries after its cursor. */
  sinkBacklog(): Promise<ReadonlyArray<Readonly<{ sink: string; entries: number }>>>;
}>;

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const slowSeconds = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

type Registers = Registry[];

/** The HTTP surfaces: requests by route, the facade's fetches and bytes, the holdings check. */
const surfaceMetrics = (registers: Registers) => ({
  // The revocation check appends nothing to the ledger; a counter tagged by answered state is kept.
  holdings: new Counter({
    name: 'gateway_holdings_answers_total',
    help: 'Holdings check answers by state',
    labelNames: ['state'] as const,
    registers,
  }),
  http: new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code, from the request to the last byte sent',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: seconds,
    registers,
  }),
  facadeFetches: new Counter({
    name: 'gateway_facade_fetches_total',
    help: 'Facade requests on a served repository by marketplace, protocol, phase and outcome',
    labelNames: ['marketplace', 'protocol', 'phase', 'outcome'] as const,
    registers,
  }),
  facadeBytes: new Counter({
    name: 'gateway_facade_bytes_sent_total',
    help: 'Bytes of advertisements, ref lists and packs the facade sent, by marketplace and phase',
    labelNames: ['marketplace', 'phase'] as const,
    registers,
  }),
});

/** The governance pipeline: ingest, vetting, decisions, the event store. */
const pipelineMetrics = (registers: Registers) => ({
  ingest: new Histogram({
    name: 'gateway_ingest_duration_seconds',
    help: 'Ingestions (fetch, capture and vetting at ingestion) by trigger and outcome',
    labelNames: ['trigger', 'outcome'] as const,
    buckets: slowSeconds,
    registers,
  }),
  vetting: new Histogram({
    name: 'gateway_vetting_connector_duration_seconds',
    help: 'Vetting connector runs by connector and verdict',
    labelNames: ['connector', 'verdict'] as const,
    buckets: slowSeconds,
    registers,
  }),
  decisions: new Counter({
    name: 'gateway_snapshot_decisions_total',
    help: 'Snapshot approvals, rejections and revocations appended by this replica',
    labelNames: ['decision'] as const,
    registers,
  }),
  append: new Histogram({
    name: 'gateway_eventstore_append_duration_seconds',
    help: 'Event store appends by outcome (ok, conflict, error)',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  }),
});

/** What the leader's duties do: outbound deliveries and retention passes. */
const dutyMetrics = (registers: Registers) => ({
  deliveries: new Counter({
    name: 'gateway_webhook_delivery_attempts_total',
    help: 'Outbound delivery attempts by kind (webhook, audit-batch) and outcome (delivered, retrying, failed)',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  }),
  retentionPasses: new Counter({
    name: 'gateway_retention_passes_total',
    help: 'Retention passes by kind (evaluation, compaction) and trigger (scheduled, on-demand)',
    labelNames: ['kind', 'trigger'] as const,
    registers,
  }),
  retentionSnapshots: new Counter({
    name: 'gateway_retention_snapshots_total',
    help: 'Snapshots acted on by retention passes: soft-deleted (evaluation) or purged (compaction)',
    labelNames: ['action'] as const,
    registers,
  }),
});

type Reading<L extends string> = ReadonlyArray<readonly [Partial<Record<L, string>>, number]>;

/** The gauges read at scrape time from what `sources()` answers (empty while it is null or when a read fails). */
function scrapedMetrics(registers: Registers, sources: () => ScrapeSources | null) {
  const scraped = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (s: ScrapeSources) => Promise<Reading<L>>,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        const source = sources();
        if (!source) return;
        const values = await read(source).catch((): Reading<L> => []);
        for (const [labels, value] of values) this.set(labels, value);
      },
    });
  return {
    projectionLag: scraped(
      'gateway_projection_lag',
      'Event store head minus the checkpoint, per projection and reactor, read at scrape time',
      ['projection'],
      async (s) => (await s.projectionLag()).map((p) => [{ projection: p.projection }, p.lag] as const),
    ),
    webhookBacklog: scraped(
      'gateway_webhook_backlog',
      'Pending webhook deliveries to subscribers, read at scrape time',
      [],
      async (s) => [[{}, await s.webhookBacklog()] as const],
    ),
    sinkBacklog: scraped(
      'gateway_audit_sink_backlog_entries',
      'Ledger entries after each enabled audit sink cursor (not yet delivered), read at scrape time',
      ['sink'],
      async (s) => (await s.sinkBacklog()).map((b) => [{ sink: b.sink }, b.entries] as const),
    ),
  };
}

/** The process's metrics, exposed at /actuator/prometheus. One registry per gateway instance. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let sources: ScrapeSources | null = null;
  return {
    registry,
    /** Called once by the composition root: the scrape-time gauges read from `scrapeSources` from then on. */
    readFrom(scrapeSources: ScrapeSources): void {
      sources = scrapeSources;
    },
    ...surfaceMetrics(registers),
    ...pipelineMetrics(registers),
    ...dutyMetrics(registers),
    ...scrapedMetrics(registers, () => sources),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
