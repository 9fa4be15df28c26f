import { Type } from 'typebox';
import { streams } from '../../../domain/shared/streams.ts';
import { evaluate } from '../../../domain/vetting/outcome.ts';
import { vettingSettingsDecider } from '../../../domain/vetting/settings.decider.ts';
import { chainModes } from '../../../domain/vetting/vetting.events.ts';
import { waiverDecider } from '../../../domain/vetting/waiver.decider.ts';
import { marketplaceById } from '../../../projections/marketplaces/marketplaces.queries.ts';
import { snapshotsOf } from '../../../projections/snapshots/snapshots.queries.ts';
import { latestRun, vetterToggles, waiverById, waiversOf } from '../../../projections/vetting/vetting.queries.ts';
import { metaFor, requireAdmin, requireApproverOf } from '../../auth/authorize.ts';
import { execute } from '../../../application/execute.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { reject } from '../../problems.ts';
import { IdParams, literalUnion, problemResponses } from '../../schemas/common.schema.ts';
import {
  ChainLinkView, ChainSettingsView, RevetView, ToggleView, VettingReport, WaiverView, waiverView,
} from '../../schemas/vetting.schema.ts';
import { liveOr404 } from '../marketplaces/marketplaces.route.ts';
import { addressedSnapshot } from '../../../application/addressed-snapshot.ts';
import { chainFor, revet } from '../../../application/run-vetting.ts';

const tags = ['vetting'];
const NameParams = Type.Object({ name: Type.String({ maxLength: 200 }) });
const Reason = Type.String({ maxLength: 2000, description: 'Why; recorded on the ledger (required, not blank)' });

// Fields are optional in the schema so that a missing one gets the specification's 400 with a
// sentence naming it, not a schema error.
const WaiverBody = Type.Object({
  ruleId: Type.Optional(Type.String({ maxLength: 200 })),
  scope: Type.Optional(Type.String({ maxLength: 20, description: '`SNAPSHOT` or `PATH`' })),
  path: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
  justification: Type.Optional(Type.String({ maxLength: 4000 })),
  expiresAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
}, { additionalProperties: false });

const connectorsView = async (deps: HttpDeps, marketplaceId: number | null) => (await chainFor(deps, marketplaceId)).chain;

export function vettingRoutes(app: HttpApp, deps: HttpDeps): void {
  app.get('/api/v1/snapshots/:id/vetting', {
    schema: {
      tags, summary: 'Vetting report: the latest run and the outcome in force now', params: IdParams,
      description: 'The effective `outcome` is recomputed on every request from the latest run and the waivers active at that instant; '
        + '`recordedOutcome` is what the connectors concluded and is never rewritten. A snapshot never vetted reports BLOCKED with run null.',
      response: { 200: VettingReport, ...problemResponses(404) },
    },
  }, async (request) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    const [run, waivers, connectors] = await Promise.all([latestRun(deps.pool, snapshot.id), waiversOf(deps.pool, marketplace.id), connectorsView(deps, marketplace.id)]);
    const now = deps.clock.instant();
    const evaluation = evaluate(run?.verdicts ?? null, snapshot.sha, waivers, now);
    const rules = new Set(run?.verdicts.flatMap((v) => v.findings.map((f) => f.id)) ?? []);
    return {
      snapshotId: snapshot.id,
      outcome: evaluation.outcome,
      recordedOutcome: run?.outcome ?? evaluation.recordedOutcome,
      run: run && {
        runId: run.runId, snapshotId: run.snapshotId, trigger: run.trigger, outcome: run.outcome, startedAt: run.startedAt,
        finishedAt: run.finishedAt, verdicts: run.verdicts.map((v) => ({ ...v, findings: [...v.findings] })),
      },
      suppressed: [...evaluation.suppressed],
      uncovered: [...evaluation.uncovered],
      waivers: waivers.filter((w) => rules.has(w.ruleId)).map((w) => waiverView(w, now)),
      connectors,
    };
  });

  app.post('/api/v1/snapshots/:id/waivers', {
    schema: {
      tags, summary: 'Waive a finding for this commit (SNAPSHOT) or under a path (PATH) of the marketplace, until expiresAt', params: IdParams,
      body: WaiverBody, response: { 201: WaiverView, ...problemResponses(400, 403, 404) },
    },
  }, async (request, reply) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    const body = request.body;
    const scope = body.scope;
    if (scope !== 'SNAPSHOT' && scope !== 'PATH') {
      throw reject('invalid-waiver', scope === undefined ? 'scope is required: SNAPSHOT or PATH' : `scope '${scope}' is not usable: SNAPSHOT or PATH`);
    }
    const waiverId = await deps.ids('waiver');
    await execute(deps, waiverDecider, streams.waivers(marketplace.id), {
      type: 'create-waiver',
      data: {
        waiverId, marketplace: { id: marketplace.id, name: marketplace.name }, snapshot: { id: snapshot.id, sha: snapshot.sha },
        ruleId: body.ruleId ?? '', scope, path: body.path ?? null, justification: body.justification ?? '', expiresAt: body.expiresAt ?? null,
      },
      meta: metaFor(deps, request, caller),
    }, ['vetting', 'ledger']);
    const waiver = await waiverById(deps.pool, waiverId);
    return reply.code(201).send(waiverView(waiver!, deps.clock.instant()));
  });

  app.get('/api/v1/marketplaces/:name/waivers', {
    schema: { tags, summary: "The marketplace's waivers, newest first, active and lapsed", params: NameParams, response: { 200: Type.Array(WaiverView), ...problemResponses(404) } },
  }, async (request) => {
    const marketplace = await liveOr404(deps, request.params.name);
    const now = deps.clock.instant();
    return (await waiversOf(deps.pool, marketplace.id)).map((w) => waiverView(w, now));
  });

  app.delete('/api/v1/waivers/:id', {
    schema: { tags, summary: 'Revoke a waiver (the row stays, active false)', params: IdParams, response: { 200: WaiverView, ...problemResponses(403, 404) } },
  }, async (request) => {
    const waiver = await waiverById(deps.pool, request.params.id);
    const marketplace = waiver ? await marketplaceById(deps.pool, waiver.marketplaceId) : null;
    if (!waiver || !marketplace || waiver.revokedAt !== null) throw reject('waiver-not-found', `no waiver ${request.params.id}, or it is already revoked`);
    const caller = await requireApproverOf(deps, request, marketplace);
    await execute(deps, waiverDecider, streams.waivers(marketplace.id), {
      type: 'revoke-waiver', data: { waiverId: waiver.waiverId }, meta: metaFor(deps, request, caller),
    }, ['vetting', 'ledger']);
    return waiverView((await waiverById(deps.pool, waiver.waiverId))!, deps.clock.instant());
  });

  app.post('/api/v1/snapshots/:id/revet', {
    schema: {
      tags, summary: 'Re-run the vetting chain on a snapshot (trigger revet-manual)', params: IdParams,
      description: 'Classification CLEAR, VIOLATION or INCONCLUSIVE (the chain blocks only because a connector errored, timed out or has not answered). '
        + 'In ENFORCE mode (gateway.vetting.revet.mode) a VIOLATION of an approved snapshot revokes it; `affected` lists who fetched it.',
      response: { 200: RevetView, ...problemResponses(403, 404) },
    },
  }, async (request) => {
    const { snapshot, marketplace } = await addressedSnapshot(deps, request.params.id);
    const caller = await requireApproverOf(deps, request, marketplace);
    return revet(deps, snapshot, marketplace, metaFor(deps, request, caller));
  });

  app.post('/api/v1/marketplaces/:name/revet', {
    schema: {
      tags, summary: 'Re-vet every approved snapshot of the marketplace (trigger revet-manual)', params: NameParams,
      response: { 200: Type.Object({ marketplace: Type.String(), results: Type.Array(RevetView) }), ...problemResponses(403, 404) },
    },
  }, async (request) => {
    const marketplace = await liveOr404(deps, request.params.name);
    const caller = await requireApproverOf(deps, request, marketplace);
    const approved = (await snapshotsOf(deps.pool, [marketplace.id])).filter((s) => s.state === 'approved');
    const results = [];
    for (const snapshot of approved) results.push(await revet(deps, snapshot, marketplace, metaFor(deps, request, caller)));
    return { marketplace: marketplace.name, results };
  });

  // -- chain settings (admin): each change on the ledger with actor, vetter, scope, new state and reason

  const settingsView = async (marketplaceId: number | null) => {
    const { settings, chain } = await chainFor(deps, marketplaceId);
    return { mode: settings.mode, order: chain.map((c) => c.name), connectors: chain };
  };

  app.get('/api/v1/marketplaces/:name/vetting-chain', {
    schema: { tags, summary: 'The chain as it runs for this marketplace: every vetter in order, enabled or not (admin)', params: NameParams, response: { 200: Type.Array(ChainLinkView), ...problemResponses(403, 404) } },
  }, async (request) => {
    await requireAdmin(deps, request);
    const marketplace = await liveOr404(deps, request.params.name);
    return connectorsView(deps, marketplace.id);
  });

  app.get('/api/v1/marketplaces/:name/vetting-chain-settings', {
    schema: {
      tags, summary: "The chain mode and order, and this marketplace's vetter toggles (admin)", params: NameParams,
      response: { 200: Type.Object({ marketplace: Type.String(), ...ChainSettingsView.properties, toggles: Type.Array(ToggleView) }), ...problemResponses(403, 404) },
    },
  }, async (request) => {
    await requireAdmin(deps, request);
    const marketplace = await liveOr404(deps, request.params.name);
    const toggles = (await vetterToggles(deps.pool, marketplace.id)).filter((t) => t.scope === 'marketplace');
    return { marketplace: marketplace.name, ...(await settingsView(marketplace.id)), toggles };
  });

  app.get('/api/v1/vetting/vetter-toggles', {
    schema: { tags, summary: 'Every vetter toggle, global ones first (admin)', response: { 200: Type.Array(ToggleView), ...problemResponses(403) } },
  }, async (request) => {
    await requireAdmin(deps, request);
    return vetterToggles(deps.pool);
  });

  app.get('/api/v1/vetting/chain-settings', {
    schema: { tags, summary: 'The global chain mode and order (admin)', response: { 200: ChainSettingsView, ...problemResponses(403) } },
  }, async (request) => {
    await requireAdmin(deps, request);
    return settingsView(null);
  });

  app.put('/api/v1/vetting/vetters/:name/toggle', {
    schema: {
      tags, summary: 'Enable or disable a vetter globally, or for one marketplace (admin)', params: NameParams,
      body: Type.Object({ enabled: Type.Boolean(), reason: Reason, marketplace: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])) }, { additionalProperties: false }),
      response: { 200: Type.Array(ChainLinkView), ...problemResponses(403, 404, 422) },
    },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    const { enabled, reason, marketplace: name } = request.body;
    const marketplace = name ? await liveOr404(deps, name) : null;
    await execute(deps, vettingSettingsDecider, streams.vettingSettings(), {
      type: 'toggle-vetter',
      data: { vetter: request.params.name, enabled, reason, marketplace: marketplace && { id: marketplace.id, name: marketplace.name }, known: deps.vetting.connectors.map((c) => c.name) },
      meta: metaFor(deps, request, caller),
    }, ['vetting', 'ledger']);
    return connectorsView(deps, marketplace?.id ?? null);
  });

  app.put('/api/v1/vetting/chain-mode', {
    schema: {
      tags, summary: 'Run every vetter (run-all), or stop after the first FAIL or ERROR (stop-on-failure) (admin)',
      body: Type.Object({ mode: literalUnion(chainModes), reason: Reason }, { additionalProperties: false }),
      response: { 200: ChainSettingsView, ...problemResponses(403, 422) },
    },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    await execute(deps, vettingSettingsDecider, streams.vettingSettings(), {
      type: 'set-chain-mode', data: { mode: request.body.mode, reason: request.body.reason, known: deps.vetting.connectors.map((c) => c.name) },
      meta: metaFor(deps, request, caller),
    }, ['vetting', 'ledger']);
    return settingsView(null);
  });

  app.put('/api/v1/vetting/chain-order', {
    schema: {
      tags, summary: 'Set the whole arrangement of the chain in one call: every vetter exactly once (admin)',
      body: Type.Object({ order: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }), reason: Reason }, { additionalProperties: false }),
      response: { 200: ChainSettingsView, ...problemResponses(403, 422) },
    },
  }, async (request) => {
    const caller = await requireAdmin(deps, request);
    await execute(deps, vettingSettingsDecider, streams.vettingSettings(), {
      type: 'set-chain-order', data: { order: request.body.order, reason: request.body.reason, known: deps.vetting.connectors.map((c) => c.name) },
      meta: metaFor(deps, request, caller),
    }, ['vetting', 'ledger']);
    return settingsView(null);
  });
}
