import t from 'tap';
import { runCommand } from '../../../src/application/kernel/run-command.ts';
import { marketplaceDecider } from '../../../src/domain/marketplace/marketplace.decider.ts';
import { streams } from '../../../src/domain/kernel/streams.ts';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startOnConfig, testConfig } from '../../support/gateway.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// Found by the fault suite (test/faults): a gateway killed between an ingestion's capture and its vetting
// run left a held snapshot with no run, BLOCKED until someone asked for a rerun. The leader now vets such
// snapshots when it starts.

t.test('a held snapshot an interrupted ingestion left unvetted is vetted when the leader starts', async (t) => {
  const config = await testConfig(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
  const first = await startOnConfig(config);
  const api = devSession(first, 'root');
  const marketplace = (await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).body;

  // What an ingestion does up to the point a crash cut it off: the commit pinned in quarantine and captured.
  const { sha } = await first.core.gitStore.fetchUpstream(marketplace.id, upstream.url);
  const snapshotId = await first.deps.ids('snapshot');
  const meta = {
    principal: 'root',
    actorType: 'human' as const,
    at: new Date().toISOString(),
    correlationId: 'cut-off',
  };
  await runCommand(first.core.store, marketplaceDecider, streams.marketplace(marketplace.id), {
    type: 'record-ingest',
    data: {
      snapshotId,
      sha,
      upstreamSha: sha,
      violation: null,
      trigger: 'on-demand',
      committedAt: null,
      description: null,
    },
    meta,
  });
  await first.settled();
  const before = await api.get(`/api/v1/snapshots/${snapshotId}/vetting`);
  t.match(before.body, { outcome: 'BLOCKED', run: null }, 'captured without a run: BLOCKED');
  await first.close();

  const second = await startOnConfig(config);
  t.teardown(() => second.close());
  const again = devSession(second, 'root');
  const report = await eventually(
    async () => {
      const answer = await again.get(`/api/v1/snapshots/${snapshotId}/vetting`);
      return answer.body?.run ? answer.body : null;
    },
    30_000,
    200,
  );
  t.match(report, { outcome: 'CLEAR', run: { trigger: 'ingestion' } }, 'the leader ran the ingestion vetting');
  const entries = (await again.get('/api/v1/audit?limit=50')).body.entries as Array<Record<string, unknown>>;
  t.ok(
    entries.some((e) => e.event === 'vetting-completed' && e.principal === 'system'),
    'recorded as the system',
  );
  t.equal((await again.post(`/api/v1/snapshots/${snapshotId}/approve`)).status, 200, 'and it can be approved');
});

t.test(
  'a vetting worker that dies mid-vetting leaves the snapshot held and unvetted; the next start vets it',
  async (t) => {
    // A tree big enough to be vetted in the workers (over 256 KiB of text, over 64 KiB of scripts), and a
    // worker heap far too small for it: the worker runs out of memory, as a hostile tree could make it.
    const files: Record<string, string> = { ...marketplaceFiles('acme', ['alpha']) };
    for (let k = 0; k < 12; k++) {
      files[`plugins/alpha/skills/s${k}/SKILL.md`] =
        `---\nname: s${k}\ndescription: Notes ${k}\n---\n\n${'Read the changelog before each release. '.repeat(800)}\n`;
      files[`plugins/alpha/skills/s${k}/scripts/run.sh`] =
        `#!/bin/bash\nset -euo pipefail\n${Array.from({ length: 300 }, (_, n) => `echo "step ${n}" && git status --short`).join('\n')}\n`;
    }
    const config = await testConfig(t, {
      GATEWAY_DEV_INSECURE_AUTH: 'true',
      GATEWAY_ROLES_ADMINS: 'root',
      GATEWAY_VETTING_WORKER_MEMORY: '16',
    });
    const upstream = await serveUpstream(t, files);
    const first = await startOnConfig(config);
    const api = devSession(first, 'root');
    t.equal((await api.post('/api/v1/marketplaces', { name: 'acme', url: upstream.url })).status, 201);
    const ingest = await api.post('/api/v1/marketplaces/acme/ingest');
    t.equal(ingest.status, 201, 'the ingestion itself succeeds: the tree is pinned and captured');
    const snapshotId = ingest.body.id as number;
    await first.settled();
    t.match(
      (await api.get(`/api/v1/snapshots/${snapshotId}/vetting`)).body,
      { outcome: 'BLOCKED', run: null },
      'no verdict was recorded: held and unvetted',
    );
    t.equal((await api.get('/actuator/health')).status, 200, 'the gateway lives on');
    await first.close();

    const second = await startOnConfig({ ...config, vetting: { ...config.vetting, workerMemoryMb: 2048 } });
    t.teardown(() => second.close());
    const again = devSession(second, 'root');
    const report = await eventually(
      async () => {
        const answer = await again.get(`/api/v1/snapshots/${snapshotId}/vetting`);
        return answer.body?.run ? answer.body : null;
      },
      60_000,
      200,
    );
    t.match(report, { run: { trigger: 'ingestion' } }, 'the leader vetted it at start');
    t.not(report.outcome, 'BLOCKED', 'with every connector judged');
  },
);
