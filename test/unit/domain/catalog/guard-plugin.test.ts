// gateway.catalog.guard: the catalog lists the gateway-guard plugin and records its fingerprint, so a catalog
// built with another guard (or none) is not current.
import t from 'tap';
import {
  catalogFiles,
  isCurrent,
  planCatalog,
  readCatalogRecord,
  type FirstPartyPlugin,
} from '../../../../src/domain/catalog/catalog-plan.ts';
import { guardCatalogEntry, guardPluginFiles } from '../../../../src/domain/catalog/guard-plugin.ts';

const sha = 'a'.repeat(40);
const manifest = JSON.stringify({ name: 'acme', owner: { name: 'x' }, plugins: [{ name: 'zeta', source: './zeta' }] });
const plan = planCatalog([{ marketplace: 'acme', sha, manifest }]);
const guard: FirstPartyPlugin = { entry: guardCatalogEntry, fingerprint: 'f'.repeat(64) };
const files = (with_: FirstPartyPlugin | null) =>
  catalogFiles({
    catalog: 'catalog',
    generatedAt: '2026-03-01T10:00:00.000Z',
    plan,
    listed: plan.candidates,
    missing: [],
    guard: with_,
  });

t.test('with the guard on, the catalog lists it beside the constituents, in name order', async (t) => {
  const written = JSON.parse(files(guard).manifest) as { plugins: Array<{ name: string; source: string }> };
  t.same(
    written.plugins.map((p) => [p.name, p.source]),
    [
      ['gateway-guard', './gateway-guard'],
      ['zeta', './plugins/acme/zeta'],
    ],
  );
});

t.test('the record carries the fingerprint only when the guard is on; isCurrent compares it', async (t) => {
  const on = readCatalogRecord(files(guard).recordText);
  const off = readCatalogRecord(files(null).recordText);
  t.equal(on?.guard, guard.fingerprint);
  t.notOk(
    'guard' in (JSON.parse(files(null).recordText) as object),
    'a catalog without the guard is written as before',
  );
  const constituents = [{ marketplace: 'acme', sha }];
  t.ok(isCurrent(on, 'catalog', constituents, guard.fingerprint));
  t.notOk(isCurrent(on, 'catalog', constituents, null), 'turning the guard off rebuilds');
  t.notOk(isCurrent(on, 'catalog', constituents, 'e'.repeat(64)), 'another guard rebuilds');
  t.notOk(isCurrent(off, 'catalog', constituents, guard.fingerprint), 'turning it on rebuilds');
  t.ok(isCurrent(off, 'catalog', constituents));
});

t.test("the hook is run by sh, with ${CLAUDE_PLUGIN_ROOT} quoted, as Claude Code's validator asks", async (t) => {
  const hooks = JSON.parse(guardPluginFiles['hooks/hooks.json']!) as {
    hooks: { SessionStart: Array<{ hooks: Array<{ type: string; command: string }> }> };
  };
  t.same(hooks.hooks.SessionStart[0]?.hooks[0]?.command, 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"');
  t.ok(guardPluginFiles['hooks/session-start.sh']?.startsWith('#!/bin/sh\n'));
});
