import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { codeTracer, common, type CodeTrace } from '../../support/code-trace.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { receiver } from '../../support/receiver.ts';
import { render, spliced, split, type TraceSpec } from '../../support/trace-render.ts';
import { gitClient, marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The traces in docs/architecture.md are what the code does: each request below runs twice (two
// marketplaces) against a gateway in this process, the functions of src/ that ran are read from V8's
// coverage, and what both runs share is drawn. `npm run trace` (TRACE_WRITE=1) writes the block; otherwise
// the test fails when the block differs from what the code does now.

const architecture = new URL('../../../docs/architecture.md', import.meta.url);
// The asynchronous part enters through the projections and reactors the runner feeds (and what they build with).
const projections = /^src\/projections\/(?!runner\/)(?!.*\.queries\.ts$)/;

const specs = {
  approve: {
    title: 'Approve a snapshot',
    what:
      '`POST /api/v1/snapshots/{id}/approve` on a held snapshot, no policy rule enabled. The answer comes once ' +
      'the read models it names have caught up, the published repository included, so the request waits for the ' +
      'asynchronous part: the projections of the approval and the publication that moves the served refs. The ' +
      "virtual catalog's build follows the answer and is not drawn (the traced gateway runs without the catalog).",
    roots: /^src\/http\/api\/snapshots\/decisions\.route\.ts$/,
    asynchronousRoots: new RegExp(`${projections.source}|^src/adapters/git/`),
    asynchronousName: 'Asynchronous part (projections, publication, git), waited for',
  },
  approvePolicy: {
    title: 'Approve a snapshot under a policy rule',
    what:
      "The same approval with one policy rule enabled: the rule sees the snapshot's plugins, so the approval reads " +
      'the tree (listed and read with git on the calling thread for a small tree, the rule evaluated on a worker).',
    roots:
      /^src\/http\/api\/snapshots\/decisions\.route\.ts$|^src\/adapters\/(git\/tree-reader|policy\/policy-engine)\.ts$/,
    asynchronousRoots: new RegExp(`${projections.source}|^src/adapters/git/`),
    asynchronousName: 'Asynchronous part (projections, publication, git), waited for',
  },
  clone: {
    title: 'Clone through the facade',
    what:
      '`git clone https://gateway/git/<name>.git` with a personal access token, protocol v2: the advertisement ' +
      '(`info/refs`), then `git-upload-pack`. The fetch is recorded before the pack is sent; the ledger entries ' +
      'are projected after (drawn until the read models have caught up).',
    roots: /^src\/http\/git\/facade\.route\.ts$|^src\/adapters\/git\/(git-store|served-view)\.ts$/,
    asynchronousRoots: projections,
    asynchronousName: 'Asynchronous part (the ledger and the other read models)',
  },
  ingest: {
    title: 'Ingest a marketplace',
    what:
      '`POST /api/v1/marketplaces/{name}/ingest` of a registered marketplace with two plugins: fetch into ' +
      'quarantine, compose the served tree, vet it (the connectors run on worker threads, which a trace of the ' +
      'main thread does not see), capture the snapshot. Projected until the read models have caught up.',
    roots:
      /^src\/http\/api\/marketplaces\/ingest\.route\.ts$|^src\/adapters\/(git\/(git-store|tree-reader)|vetting\/vetting-pool)\.ts$/,
    asynchronousRoots: projections,
    asynchronousName: 'Asynchronous part (projections)',
  },
  webhook: {
    title: 'Deliver a webhook',
    what:
      'A subscriber of `marketplace.registered`: from the registration answered until the receiver has the ' +
      'signed delivery and the read models have caught up. The dispatch pass is a leader duty, woken by the ' +
      'deliveries reactor or its poll interval.',
    roots:
      /^src\/application\/outbound\/.*dispatch.*\.duty\.ts$|^src\/adapters\/(webhooks\/transport|outbound\/outbound-boundary)\.ts$/,
    asynchronousRoots: projections,
    asynchronousName: 'Asynchronous part (the deliveries reactor and projections)',
  },
} satisfies Record<string, TraceSpec>;

t.test('the traces in docs/architecture.md are what the code does', async (t) => {
  const gw = await startTestGateway(t, {
    GATEWAY_DEV_INSECURE_AUTH: 'true',
    GATEWAY_ROLES_ADMINS: 'root',
    // The catalog's build follows an approval's answer on a timer: whether it falls inside a traced window
    // would depend on the machine's speed.
    GATEWAY_CATALOG_ENABLED: 'false',
    GATEWAY_VETTING_WAIVER_SWEEP_INTERVAL: '24h',
    GATEWAY_WEBHOOKS_POLL_INTERVAL: '2s',
  });
  const root = devSession(gw, 'root');
  const tracer = await codeTracer();
  t.teardown(() => tracer.close());
  const names = ['acme', 'globex', 'hooli', 'soylent'];
  const upstreams = await Promise.all(names.map((name) => serveUpstream(t, marketplaceFiles(name, ['alpha', 'beta']))));
  for (const [i, name] of names.entries())
    t.equal(
      (await root.post('/api/v1/marketplaces', { name, url: upstreams[i]!.url })).status,
      201,
      `${name} registered`,
    );
  await gw.settled();

  const traces: Record<keyof typeof specs, CodeTrace[]> = {
    approve: [],
    approvePolicy: [],
    clone: [],
    ingest: [],
    webhook: [],
  };
  const snapshots: number[] = [];
  for (const name of names)
    traces.ingest.push(
      await tracer.during(async () => {
        const answer = await root.post(`/api/v1/marketplaces/${name}/ingest`);
        t.equal(answer.status, 201, `${name} ingested`);
        snapshots.push((answer.body as { id: number }).id);
        await gw.settled();
      }),
    );
  const approve = (id: number) => async () => {
    t.equal((await root.post(`/api/v1/snapshots/${id}/approve`)).status, 200, `snapshot ${id} approved`);
  };
  for (const id of snapshots.slice(0, 2)) traces.approve.push(await tracer.during(approve(id)));
  const rule = {
    name: 'no-nope',
    description: 'never matches',
    expression: 'snapshot.plugins.exists(p, p.name == "nope")',
  };
  t.equal((await root.post('/api/v1/policy/rules', rule)).status, 200, 'an enabled rule');
  for (const id of snapshots.slice(2)) traces.approvePolicy.push(await tracer.during(approve(id)));
  const token = (await root.post('/api/v1/tokens', { name: 'trace' })).body.token as string;
  for (const name of names.slice(0, 2))
    traces.clone.push(
      await tracer.during(async () => {
        const clone = await gitClient(t, token).clone(`${gw.url}/git/${name}.git`);
        t.ok(clone.ok, `${name} cloned: ${clone.stderr}`);
        await gw.settled();
      }),
    );
  const hook = await receiver(t);
  const subscribed = await root.post('/api/v1/webhooks', { url: hook.url, events: ['marketplace.registered'] });
  t.equal(subscribed.status, 201, 'a subscriber');
  for (const [i, name] of ['initech', 'umbrella'].entries()) {
    t.equal((await root.post('/api/v1/marketplaces', { name, url: upstreams[0]!.url })).status, 201);
    await gw.settled();
    const before = await gw.core.store.head();
    traces.webhook.push(
      await tracer.during(async () => {
        t.equal(hook.received.length, i, 'the delivery comes after the registration answered');
        await eventually(async () => hook.received.length === i + 1, 20_000);
        // The dispatcher records the attempt after the receiver answered: wait for it, then for its projection.
        await eventually(async () => (await gw.core.store.head()) > before, 20_000);
        await gw.settled();
      }),
    );
  }

  const blocks = (Object.keys(specs) as (keyof typeof specs)[]).map((key) => render(common(traces[key]), specs[key]));
  const drawn = split(common(traces.approve), specs.approve);
  t.ok(drawn.request.includes('src/http/api/snapshots/decisions.route.ts'), 'the trace sees the route (it could fail)');
  t.ok(
    drawn.request.includes('src/application/snapshots/approve.use-case.ts'),
    'approve is found at application/snapshots/approve.use-case.ts',
  );
  const document = readFileSync(architecture, 'utf8');
  const generated = spliced(document, blocks.join('\n'));
  if (process.env.TRACE_WRITE === '1') writeFileSync(architecture, generated);
  else {
    // The lines that differ, in the message itself: a long diff may be cut from a CI log.
    const lines = (text: string) => new Set(text.split('\n'));
    const [was, now] = [lines(document), lines(generated)];
    const differing = [
      ...[...was].filter((line) => !now.has(line)).map((line) => `- ${line}`),
      ...[...now].filter((line) => !was.has(line)).map((line) => `+ ${line}`),
    ];
    t.equal(
      document,
      generated,
      `docs/architecture.md holds the traces the code runs (npm run trace writes them)${differing.length ? `; differing lines:\n${differing.slice(0, 12).join('\n')}` : ''}`,
    );
  }
});
