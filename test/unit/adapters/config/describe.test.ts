import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtNote, configKeys, startupWarnings } from '../../../../src/adapters/config/describe.ts';
import { readConfig, type LoadedConfig } from '../../../../src/adapters/config/load.ts';
import { configKeyTable, GatewayConfigSchema } from '../../../../src/adapters/config/schema.ts';

type Env = Record<string, string>;

function read(t: { teardown(fn: () => void): void }, yaml: string | undefined, env: Env = {}): LoadedConfig {
  const cwd = mkdtempSync(path.join(tmpdir(), 'gateway-describe-test-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  if (yaml !== undefined) writeFileSync(path.join(cwd, 'gateway.yaml'), yaml);
  return readConfig({ env, cwd });
}

t.test('no warning when nothing is set, even though unbuilt keys have defaults', async (t) => {
  const loaded = read(t, undefined);
  t.same([...loaded.given], []);
  t.same(startupWarnings(loaded), []);
});

t.test('every feature is built: set keys pass in silence, object storage included', async (t) => {
  const yaml =
    'gateway:\n  audit-export: { batch-size: 3 }\n  storage: { backend: object-store, object-store: { bucket: b, region: r } }\n  log: { level: warn }\n';
  const loaded = read(t, yaml, {
    GATEWAY_RETENTION_ENABLED: 'true',
    GATEWAY_MIRROR_URL: 'https://forge.example.test/mirror/{name}.git',
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '1m',
    GATEWAY_AUDIT_EXPORT_MAX_PAGE_SIZE: '500',
    GATEWAY_AUDIT_EXPORT_DEFAULT_PAGE_SIZE: '100',
  });
  t.ok(loaded.given.size > 0, 'the keys were read as given');
  t.same(startupWarnings(loaded), [], 'no "not built yet" warning for any of them');
});

t.test('dev-insecure-auth warns that any caller can act as anyone', async (t) => {
  const [warning, ...rest] = startupWarnings(read(t, undefined, { GATEWAY_DEV_INSECURE_AUTH: 'true' }));
  t.match(warning, /^gateway\.dev-insecure-auth is on: any caller can act as anyone via the X-Dev-User header/);
  t.match(warning, /never in production/);
  t.same(rest, []);
  t.same(startupWarnings(read(t, 'gateway: { dev-insecure-auth: false }')), []);
});

t.test('the key list marks nothing as not built (object storage was the last such feature)', async (t) => {
  const unbuilt = configKeys().filter((k) => k.built !== 'yes');
  t.same(
    unbuilt.map((k) => k.key),
    [],
  );
  const backend = configKeys().find((k) => k.key === 'gateway.storage.backend');
  t.equal(backend && builtNote(backend), '', 'no note on the storage backend');
});

t.test('the result schema and the key table come from the one description', async (t) => {
  const props = configKeyTable.map((spec) => spec.prop);
  t.equal(new Set(props).size, props.length, 'every key has its own place in GatewayConfig');
  for (const spec of configKeyTable) {
    const schema = spec.prop
      .split('.')
      .reduce<{ properties?: Record<string, unknown> } | undefined>(
        (node, part) => node?.properties?.[part] as { properties?: Record<string, unknown> } | undefined,
        GatewayConfigSchema,
      );
    t.equal(schema, spec.schema, `${spec.key} is ${spec.prop} in GatewayConfigSchema`);
  }
  const leaves = (node: { properties?: Record<string, unknown> }): number =>
    Object.values(node.properties ?? {}).reduce<number>(
      (sum, child) =>
        sum +
        ((child as { type?: string }).type === 'object' && 'properties' in (child as object)
          ? leaves(child as { properties: Record<string, unknown> })
          : 1),
      0,
    );
  t.equal(leaves(GatewayConfigSchema), configKeyTable.length, 'no value in GatewayConfig without a key');
});
