import { readFileSync } from 'node:fs';
import { devSession } from '../../support/api.ts';
import type { TestGateway } from '../../support/gateway.ts';

/** One scrape of /actuator/prometheus, parsed: each metric family's type, and every sample with its labels. */
export type Exposition = Readonly<{
  types: ReadonlyMap<string, string>;
  samples: ReadonlyArray<Readonly<{ name: string; labels: Readonly<Record<string, string>>; value: number }>>;
}>;

/** The Prometheus text format (https://prometheus.io/docs/instrumenting/exposition_formats/) as prom-client writes it. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Array<Exposition['samples'][number]> = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** Scrapes the gateway as an authenticated caller (the development hatch's session). */
export async function scrape(gw: Pick<TestGateway, 'fetch'>): Promise<Exposition> {
  const answer = await devSession(gw, 'scraper').get('/actuator/prometheus');
  if (answer.status !== 200) throw new Error(`scrape answered ${answer.status}: ${answer.text}`);
  return parseExposition(answer.text);
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export const valueOf = (e: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): number =>
  e.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

/** The metric names docs/metrics.md documents (its `### \`gateway_…\`` headings), with the type each states. */
export function documentedMetrics(): Map<string, string> {
  const doc = readFileSync('docs/metrics.md', 'utf8');
  const documented = new Map<string, string>();
  for (const [, name, body] of doc.matchAll(/^### `(gateway_\w+)`\n([\s\S]*?)(?=^##|$(?![\s\S]))/gm)) {
    documented.set(name!, /^- Type: (\w+)/m.exec(body!)?.[1] ?? 'missing');
  }
  return documented;
}

/** The metric a PromQL selector names: a histogram's series (_bucket, _sum, _count) belong to their family. */
export const familyOf = (series: string, families: ReadonlyMap<string, string>): string => {
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return base !== series && families.get(base) === 'histogram' ? base : series;
};
