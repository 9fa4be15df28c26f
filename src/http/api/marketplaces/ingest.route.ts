import { ingestProgressOf } from '../../../application/marketplaces/ingest-registry.ts';
import { liveOr404 } from '../../../application/marketplaces/registration.use-case.ts';
import { snapshotWithId } from '../../../application/marketplaces/marketplace-reads.use-case.ts';
import { callerOf, metaFor, requireApproverOf } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { IngestProgressAnswer, IngestsAnswer } from '../../schemas/ingest.schema.ts';
import { SnapshotView, snapshotView } from '../../schemas/marketplace.schema.ts';

const tags = ['marketplaces'];
const queueRule =
  'At most gateway.ingest.concurrency ingests run at once in a gateway process, never two of one marketplace; ' +
  'the others wait in order of arrival (GET /api/v1/ingests lists them).';

export function ingestRoutes(app: HttpApp, deps: HttpDeps): void {
  app.post(
    '/api/v1/marketplaces/:name/ingest',
    {
      schema: {
        tags,
        summary: 'Ingest the default branch into quarantine as a held snapshot',
        description: `${queueRule} The answer comes once the ingest has run; GET on the same path follows it meanwhile.`,
        params: NameParams,
        response: { 201: SnapshotView, ...problemResponses(403, 404, 502) },
      },
    },
    async (request, reply) => {
      const marketplace = await liveOr404(deps, request.params.name);
      const caller = await requireApproverOf(deps, request, marketplace);
      const { snapshotId } = await deps.ingests.run(marketplace, 'on-demand', metaFor(deps, request, caller));
      return reply.code(201).send(snapshotView((await snapshotWithId(deps, snapshotId))!));
    },
  );
  app.get(
    '/api/v1/marketplaces/:name/ingest',
    {
      schema: {
        tags,
        summary: "The marketplace's ingest running now, or waiting: phase, counts, who started it, place in the queue",
        description:
          `${queueRule} Answers the running ingest, else the marketplace's first waiting one (\`state: queued\` with its ` +
          '`position`), and in `queued` those of the marketplace waiting after it; 404 `no-ingest-running` when none ' +
          'runs or waits. Phases in order: queued, fetch, resolve (external sources, `externals`), compose, capture, ' +
          'tree (`files` read), vetting (`connectors` finished; each connector reads the whole tree). Each gateway ' +
          'process knows its own ingests only.',
        params: NameParams,
        response: { 200: IngestProgressAnswer, ...problemResponses(404) },
      },
    },
    async (request) => {
      callerOf(request);
      return ingestProgressOf(deps, request.params.name);
    },
  );
  app.get(
    '/api/v1/ingests',
    {
      schema: {
        tags,
        summary: 'Every ingest running or waiting in this gateway process, of all marketplaces',
        description: queueRule,
        response: { 200: IngestsAnswer },
      },
    },
    async (request) => {
      callerOf(request);
      return deps.ingests.all();
    },
  );
}
