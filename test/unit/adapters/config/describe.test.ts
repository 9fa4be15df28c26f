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

const notBuilt = (key: string) => `${key}: not built yet: the setting has no effect`;

t.test('no warning when nothing is set, even though unbuilt keys have defaults', async (t) => {
  const loaded = read(t, undefined);
  t.same([...loaded.given], []);
  t.same(startupWarnings(loaded), []);
});

t.test('a key of an unbuilt feature set in the file or the environment is named in a warning', async (t) => {
  const yaml =
    'gateway:\n  audit-export: { batch-size: 3 }\n  storage: { object-store: { bucket: b } }\n  log: { level: warn }\n';
  const loaded = read(t, yaml, {
    GATEWAY_RETENTION_ENABLED: 'true',
    GATEWAY_MIRROR_URL: 'https://forge.example.test/mirror/{name}.git',
    GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '1m',
    GATEWAY_AUDIT_EXPORT_MAX_PAGE_SIZE: '500',
    GATEWAY_AUDIT_EXPORT_DEFAULT_PAGE_SIZE: '100',
  });
  t.same(
    startupWarnings(loaded),
    [notBuilt('gateway.storage.object-store.bucket')],
    'the built audit export, push, retention and mirror keys and the log level pass in silence',
  );
});

t.test('a value whose feature is not built is named; the built value of the same key is not', async (t) => {
  const yaml = 'gateway: { storage: { backend: object-store, object-store: { bucket: b, region: r } } }';
  const objectStore = read(t, yaml);
  t.same(startupWarnings(objectStore), [
    "gateway.storage.backend: 'object-store' is not built yet: the setting has no effect",
    notBuilt('gateway.storage.object-store.bucket'),
    notBuilt('gateway.storage.object-store.region'),
  ]);
  t.same(startupWarnings(read(t, 'gateway: { storage: { backend: filesystem } }')), []);
});

t.test('dev-insecure-auth warns that any caller can act as anyone', async (t) => {
  const [warning, ...rest] = startupWarnings(read(t, undefined, { GATEWAY_DEV_INSECURE_AUTH: 'true' }));
  t.match(warning, /^gateway\.dev-insecure-auth is on: any caller can act as anyone via the X-Dev-User header/);
  t.match(warning, /never in production/);
  t.same(rest, []);
  t.same(startupWarnings(read(t, 'gateway: { dev-insecure-auth: false }')), []);
});

t.test('the key list marks what is not built', async (t) => {
  const byKey = new Map(configKeys().map((k) => [k.key, k]));
  for (const key of ['gateway.storage.object-store.region', 'gateway.storage.object-store.bucket']) {
    t.equal(byKey.get(key)?.built, 'no', key);
  }
  for (const key of [
    'gateway.retention.enabled',
    'gateway.retention.min-idle',
    'gateway.retention.poll-interval',
    'gateway.audit-export.lag',
    'gateway.audit-export.batch-size',
    'gateway.audit-export.poll-interval',
    'gateway.audit-export.max-page-size',
    'gateway.sync.schedule',
    'gateway.vetting.revet.schedule',
    'gateway.base-url',
    'gateway.mirror.url',
    'gateway.mirror.credentials',
  ]) {
    t.equal(byKey.get(key)?.built, 'yes', key);
  }
  const backend = byKey.get('gateway.storage.backend');
  t.same(backend?.built, { notBuiltValues: ['object-store'] });
  t.equal(backend && builtNote(backend), 'object-store: not built yet');
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
