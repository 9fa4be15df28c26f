// What the operational endpoints answer from: the page that explains a problem type, and the
// instance's metrics in the Prometheus text format.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rejectionCodes } from '../../domain/kernel/rejection.ts';
import type { Ports } from './ports.ts';
import { reject } from './rejected.ts';

const known = new Set<string>(rejectionCodes);

/** The Markdown page of problem type `code` under `problemsDir` (a heading alone when it has none); 404 for an unknown code. */
export async function problemPage(problemsDir: string, code: string): Promise<string> {
  if (!known.has(code)) throw reject('not-found', `no problem type '${code}'`);
  return readFile(join(problemsDir, `${code}.md`), 'utf8').catch(() => `# ${code}\n`);
}

/** The instance's metrics (docs/metrics.md) and their media type. */
export async function metricsExposition(
  deps: Pick<Ports, 'metrics'>,
): Promise<Readonly<{ contentType: string; body: string }>> {
  return { contentType: deps.metrics.registry.contentType, body: await deps.metrics.registry.metrics() };
}
