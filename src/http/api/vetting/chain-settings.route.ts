import { Type } from 'typebox';
import { changeChain, chainSettingsOf, toggleVetter } from '../../../application/vetting/chain-settings.use-case.ts';
import { listVetterToggles, marketplaceChainSettings } from '../../../application/vetting/vetting-reads.use-case.ts';
import { chainFor } from '../../../application/vetting/run-vetting.ts';
import { liveOr404 } from '../../../application/marketplaces/registration.use-case.ts';
import { chainModes } from '../../../domain/vetting/vetting.events.ts';
import { requireAdmin } from '../../auth/authorize.ts';
import type { HttpApp, HttpDeps } from '../../http-deps.ts';
import { actAs, readAsAdmin } from '../../auth/acting.ts';
import { literalUnion, problemResponses, NameParams } from '../../schemas/common.schema.ts';
import { ChainLinkView, ChainSettingsView, ToggleView } from '../../schemas/vetting.schema.ts';
import { Reason, tags } from './vetting.shared.ts';

// All admin. Every change names a reason and lands on the ledger with actor, vetter, scope and new state.

const ToggleBody = Type.Object(
  {
    enabled: Type.Boolean(),
    reason: Reason,
    marketplace: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false },
);

const MarketplaceSettings = Type.Object({
  marketplace: Type.String(),
  ...ChainSettingsView.properties,
  toggles: Type.Array(ToggleView),
});

// The two whole-chain changes differ only in what they set, so one handler serves both.
const chainChanges = [
  {
    url: '/api/v1/vetting/chain-mode',
    summary: 'Run every vetter (run-all), or stop after the first FAIL or ERROR (stop-on-failure) (admin)',
    body: Type.Object({ mode: literalUnion(chainModes), reason: Reason }, { additionalProperties: false }),
  },
  {
    url: '/api/v1/vetting/chain-order',
    summary: 'Set the whole arrangement of the chain in one call: every vetter exactly once (admin)',
    body: Type.Object(
      {
        order: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
        reason: Reason,
      },
      { additionalProperties: false },
    ),
  },
] as const;

export function chainSettingsRoutes(app: HttpApp, deps: HttpDeps): void {
  marketplaceChainRoute(app, deps);
  marketplaceChainSettingsRoute(app, deps);
  vetterTogglesRoute(app, deps);
  globalChainSettingsRoute(app, deps);
  toggleVetterRoute(app, deps);
  chainChangeRoutes(app, deps);
}

function marketplaceChainRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/marketplaces/:name/vetting-chain',
    {
      schema: {
        tags,
        summary: 'The chain as it runs for this marketplace: every vetter in order, enabled or not (admin)',
        params: NameParams,
        response: { 200: Type.Array(ChainLinkView), ...problemResponses(403, 404) },
      },
    },
    async (request) => {
      await requireAdmin(deps, request);
      const marketplace = await liveOr404(deps, request.params.name);
      return (await chainFor(deps, marketplace.id)).chain;
    },
  );
}

function marketplaceChainSettingsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/marketplaces/:name/vetting-chain-settings',
    {
      schema: {
        tags,
        summary: "The chain mode and order, and this marketplace's vetter toggles (admin)",
        params: NameParams,
        response: { 200: MarketplaceSettings, ...problemResponses(403, 404) },
      },
    },
    async (request) => readAsAdmin(deps, request, () => marketplaceChainSettings(deps, request.params.name)),
  );
}

function vetterTogglesRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/vetting/vetter-toggles',
    {
      schema: {
        tags,
        summary: 'Every vetter toggle, global ones first (admin)',
        response: { 200: Type.Array(ToggleView), ...problemResponses(403) },
      },
    },
    async (request) => readAsAdmin(deps, request, () => listVetterToggles(deps)),
  );
}

function globalChainSettingsRoute(app: HttpApp, deps: HttpDeps): void {
  app.get(
    '/api/v1/vetting/chain-settings',
    {
      schema: {
        tags,
        summary: 'The global chain mode and order (admin)',
        response: { 200: ChainSettingsView, ...problemResponses(403) },
      },
    },
    async (request) => readAsAdmin(deps, request, () => chainSettingsOf(deps, null)),
  );
}

function toggleVetterRoute(app: HttpApp, deps: HttpDeps): void {
  app.put(
    '/api/v1/vetting/vetters/:name/toggle',
    {
      schema: {
        tags,
        summary: 'Enable or disable a vetter globally, or for one marketplace (admin)',
        params: NameParams,
        body: ToggleBody,
        response: { 200: Type.Array(ChainLinkView), ...problemResponses(403, 404, 422) },
      },
    },
    async (request) => {
      const { enabled, reason, marketplace = null } = request.body;
      const toggle = { vetter: request.params.name, enabled, reason, marketplace };
      return actAs(deps, request, (caller, meta) => toggleVetter(deps, caller, toggle, meta));
    },
  );
}

function chainChangeRoutes(app: HttpApp, deps: HttpDeps): void {
  for (const { url, summary, body } of chainChanges) {
    app.put(
      url,
      {
        schema: { tags, summary, body, response: { 200: ChainSettingsView, ...problemResponses(403, 422) } },
      },
      async (request) => actAs(deps, request, (caller, meta) => changeChain(deps, caller, request.body, meta)),
    );
  }
}
