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

/** The constructors of a registry's counters and histograms, their label names typed. */
const declarer = (registers: Registers) => ({
  counter: <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers }),
  histogram: <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers }),
});
type Declarer = ReturnType<typeof declarer>;

/** The HTTP surfaces: requests by route, the facade's fetches and bytes, the holdings check. */
const surfaceMetrics = ({ counter, histogram }: Declarer) => ({
  // The revocation check appends nothing to the ledger; a counter tagged by answered state is kept.
  holdings: counter('gateway_holdings_answers_total', 'Holdings check answers by state', ['state']),
  http: histogram(
    'gateway_http_request_duration_seconds',
    'HTTP requests by method, route pattern and status code, from the request to the last byte sent',
    ['method', 'route', 'status'],
    seconds,
  ),
  facadeFetches: counter(
    'gateway_facade_fetches_total',
    'Facade requests on a served repository by marketplace, protocol, phase and outcome',
    ['marketplace', 'protocol', 'phase', 'outcome'],
  ),
  facadeBytes: counter(
    'gateway_facade_bytes_sent_total',
    'Bytes of advertisements, ref lists and packs the facade sent, by marketplace and phase',
    ['marketplace', 'phase'],
  ),
});

/** The governance pipeline: ingest, vetting, decisions, the event store. */
const pipelineMetrics = ({ counter, histogram }: Declarer) => ({
  ingest: histogram(
    'gateway_ingest_duration_seconds',
    'Ingestions (fetch, capture and vetting at ingestion) by trigger and outcome',
    ['trigger', 'outcome'],
    slowSeconds,
  ),
  vetting: histogram(
    'gateway_vetting_connector_duration_seconds',
    'Vetting connector runs by connector and verdict',
    ['connector', 'verdict'],
    slowSeconds,
  ),
  decisions: counter(
    'gateway_snapshot_decisions_total',
    'Snapshot approvals, rejections and revocations appended by this replica',
    ['decision'],
  ),
  append: histogram(
    'gateway_eventstore_append_duration_seconds',
    'Event store appends by outcome (ok, conflict, error)',
    ['outcome'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  ),
});

/** What the leader's duties do: outbound deliveries and retention passes. */
const dutyMetrics = ({ counter }: Declarer) => ({
  deliveries: counter(
    'gateway_webhook_delivery_attempts_total',
    'Outbound delivery attempts by kind (webhook, audit-batch) and outcome (delivered, retrying, failed)',
    ['kind', 'outcome'],
  ),
  retentionPasses: counter(
    'gateway_retention_passes_total',
    'Retention passes by kind (evaluation, compaction) and trigger (scheduled, on-demand)',
    ['kind', 'trigger'],
  ),
  retentionSnapshots: counter(
    'gateway_retention_snapshots_total',
    'Snapshots acted on by retention passes: soft-deleted (evaluation) or purged (compaction)',
    ['action'],
  ),
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
    ...surfaceMetrics(declarer(registers)),
    ...pipelineMetrics(declarer(registers)),
    ...dutyMetrics(declarer(registers)),
    ...scrapedMetrics(registers, () => sources),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
