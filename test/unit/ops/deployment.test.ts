import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Fastify from 'fastify';
import t from 'tap';
import { parse } from 'yaml';
import { configKeys } from '../../../src/adapters/config/describe.ts';
import { loadConfig } from '../../../src/adapters/config/load.ts';
import { healthRoute } from '../../../src/http/actuator/health.route.ts';
import type { HttpApp, HttpDeps } from '../../../src/http/http-deps.ts';

// `ops/docker/Dockerfile` on Node 22 with a data volume the runtime user owns;
// `ops/compose/` with KurrentDB, PostgreSQL, an S3-compatible store and two replicas behind a proxy.
// There is no Docker engine here: what can be checked without one is checked, from the files themselves.

const dockerfile = readFileSync('ops/docker/Dockerfile', 'utf8');
const compose = parse(readFileSync('ops/compose/docker-compose.yml', 'utf8'), { merge: true }) as Compose;
const caddyfile = readFileSync('ops/compose/Caddyfile', 'utf8');
const knownEnv = new Set(configKeys().flatMap((key) => (key.env ? [key.env] : [])));

type Service = {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  entrypoint?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
};
type Compose = { services: Record<string, Service>; volumes: Record<string, unknown> };

/** Dockerfile instructions, continuation lines joined, comments dropped, with the stage they belong to. */
function instructions(text: string): Array<{ stage: number; op: string; args: string }> {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  let stage = -1;
  return joined
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [, op, args] = /^\s*(\S+)\s+(.*)$/.exec(line)!;
      if (op!.toUpperCase() === 'FROM') stage += 1;
      return { stage, op: op!.toUpperCase(), args: args!.trim() };
    });
}

/** The paths a route table answers, from the real route module (no database: nothing is called). */
async function healthPathExists(path: string): Promise<boolean> {
  const app = Fastify() as unknown as HttpApp;
  healthRoute(app, {} as HttpDeps);
  await app.ready();
  const found = app.hasRoute({ method: 'GET', url: path });
  await app.close();
  return found;
}

/** `${NAME:-default}` -> default, `${NAME:?message}` -> a sample value (the operator's), `$$` -> `$`. */
const interpolate = (value: string, sample: Record<string, string>) =>
  String(value)
    .replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => sample[name] ?? fallback)
    .replace(/\$\{(\w+):\?[^}]*\}/g, (_, name: string) => sample[name] ?? `sample-${name.toLowerCase()}`)
    .replace(/\$\$/g, '$');

t.test(
  'the Dockerfile: Node 22, multi-stage, git, a non-root user owning /data, the probe, gateway serve',
  async (t) => {
    const steps = instructions(dockerfile);
    const froms = steps.filter((s) => s.op === 'FROM');
    t.ok(froms.length >= 2, 'multi-stage');
    for (const from of froms) t.match(from.args, /^node:22[-.\w]*(\s+AS\s+\w+)?$/i, `FROM ${from.args} is Node 22`);
    const build = steps.filter((s) => s.stage === 0 && s.op === 'RUN').map((s) => s.args);
    t.ok(
      build.some((run) => /\bnpm ci\b/.test(run)),
      'npm ci',
    );
    t.ok(
      build.some((run) => /\bnpm run build\b/.test(run)),
      'npm run build',
    );
    t.ok(
      build.some((run) => /\bnpm prune --omit=dev\b/.test(run)),
      'dev dependencies pruned',
    );

    const runtime = steps.filter((s) => s.stage === froms.length - 1);
    const runs = runtime.filter((s) => s.op === 'RUN').map((s) => s.args);
    t.ok(
      runs.some((run) => /apt-get install[^&]*\bgit\b/.test(run)),
      'the system git is installed',
    );
    const user = runtime.find((s) => s.op === 'USER')?.args.split(':')[0];
    t.ok(user && !['root', '0'].includes(user), `runs as ${user}, not root`);
    t.ok(
      runs.some((run) => new RegExp(`useradd\\b.*\\b${user}\\b`).test(run)),
      `the user ${user} is created`,
    );
    t.ok(
      runs.some((run) => new RegExp(`chown\\s+${user}(:\\w+)?\\s+/data\\b`).test(run)),
      `${user} owns /data`,
    );
    const chownAt = runtime.findIndex((s) => s.op === 'RUN' && /chown/.test(s.args));
    const volumeAt = runtime.findIndex((s) => s.op === 'VOLUME');
    t.ok(chownAt >= 0 && chownAt < volumeAt, 'chowned before VOLUME, so a new volume starts owned by the user');
    t.match(runtime[volumeAt]?.args, /"\/data"|\/data/, 'VOLUME /data');
    t.match(runtime.find((s) => s.op === 'EXPOSE')?.args, /^8080$/, 'EXPOSE 8080');

    // Every GATEWAY_* variable the image sets is a configuration key the loader knows.
    const env = runtime.filter((s) => s.op === 'ENV').flatMap((s) => [...s.args.matchAll(/(\w+)=(\S+)/g)]);
    const gatewayEnv = Object.fromEntries(env.map((m) => [m[1]!, m[2]!]));
    t.equal(gatewayEnv.GATEWAY_DATA_DIR, '/data', 'GATEWAY_DATA_DIR is the volume');
    for (const name of Object.keys(gatewayEnv).filter((n) => n.startsWith('GATEWAY_')))
      t.ok(knownEnv.has(name), `${name} is a configuration key`);

    const healthcheck = runtime.find((s) => s.op === 'HEALTHCHECK')?.args ?? '';
    const probed = /https?:\/\/127\.0\.0\.1:[^/]*(\/[\w/-]+)/.exec(healthcheck.replace(/'\+[^+]+\+'/g, ''))?.[1];
    t.equal(probed, '/actuator/health', 'HEALTHCHECK probes /actuator/health');
    t.ok(await healthPathExists(probed!), 'a route the gateway answers');

    // `gateway serve`: the entrypoint is the package's bin, the command `serve`.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: { gateway: string } };
    t.ok(
      runs.some((run) => run.includes(`/app/${pkg.bin.gateway} /usr/local/bin/gateway`)),
      `gateway is ${pkg.bin.gateway}`,
    );
    t.match(runtime.find((s) => s.op === 'ENTRYPOINT')?.args, /"gateway"\]$/);
    t.equal(runtime.find((s) => s.op === 'CMD')?.args, '["serve"]');

    // What the build stage copies exists, and the .dockerignore keeps none of it out.
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    for (const copy of steps.filter((s) => s.stage === 0 && s.op === 'COPY')) {
      for (const source of copy.args.split(/\s+/).slice(0, -1)) {
        t.ok(existsSync(source), `COPY ${source} exists`);
        t.notOk(ignored.includes(source.split('/')[0]!), `${source} is in the build context`);
      }
    }
    for (const heavy of ['node_modules', 'dist', '.git']) t.ok(ignored.includes(heavy), `${heavy} stays out`);
  },
);

t.test('the compose estate: two replicas on one database, event store and bucket, behind a proxy', async (t) => {
  const { services } = compose;
  const replicas = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'ops/docker/Dockerfile');
  t.same(
    replicas.map(([name]) => name),
    ['gateway-a', 'gateway-b'],
    'two gateway replicas, built from ops/docker/Dockerfile',
  );
  const [[, a], [, b]] = replicas as [[string, Service], [string, Service]];

  // Every GATEWAY_* variable named anywhere is a real configuration key.
  for (const [name, service] of Object.entries(services))
    for (const variable of Object.keys(service.environment ?? {}).filter((v) => v.startsWith('GATEWAY_')))
      t.ok(knownEnv.has(variable), `${name}: ${variable} is a configuration key`);

  const shared = [
    'GATEWAY_DATABASE_URL',
    'GATEWAY_EVENT_STORE_BACKEND',
    'GATEWAY_EVENT_STORE_URL',
    'GATEWAY_STORAGE_BACKEND',
    'GATEWAY_STORAGE_OBJECT_STORE_BUCKET',
    'GATEWAY_STORAGE_OBJECT_STORE_REGION',
    'GATEWAY_STORAGE_OBJECT_STORE_ENDPOINT',
    'GATEWAY_SECRETS_KEY',
    'GATEWAY_BASE_URL',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
  ];
  for (const key of shared) {
    t.ok(a.environment?.[key], `${key} is set`);
    t.equal(a.environment?.[key], b.environment?.[key], `both replicas share ${key}`);
  }
  const env = a.environment!;
  t.equal(env.GATEWAY_EVENT_STORE_BACKEND, 'eventstoredb');
  t.equal(env.GATEWAY_STORAGE_BACKEND, 'object-store');
  t.equal(new URL(interpolate(env.GATEWAY_DATABASE_URL!, {})).hostname, 'postgres', 'the database service');
  t.match(services.postgres?.image, /^postgres:/);
  t.equal(new URL(env.GATEWAY_EVENT_STORE_URL!).hostname, 'kurrentdb', 'the event store service');
  t.match(services.kurrentdb?.image, /kurrentdb/);
  t.equal(new URL(env.GATEWAY_STORAGE_OBJECT_STORE_ENDPOINT!).hostname, 'minio', 'the S3-compatible service');
  t.match(services.minio?.image, /^minio\/minio/);
  t.equal(
    interpolate(services.minio!.environment!.MINIO_ROOT_USER!, {}),
    interpolate(env.AWS_ACCESS_KEY_ID!, {}),
    'the replicas hold the store credentials',
  );

  // The bucket is created before the replicas start.
  const bucket = interpolate(env.GATEWAY_STORAGE_OBJECT_STORE_BUCKET!, {});
  const init = services.bucket!;
  t.match(init.entrypoint?.join(' '), /mc mb --ignore-existing "store\/\$\$BUCKET"/);
  t.equal(interpolate(init.environment!.BUCKET!, {}), bucket, `the bucket ${bucket} is the one the replicas use`);
  for (const replica of [a, b])
    t.match(replica.depends_on, {
      bucket: { condition: 'service_completed_successfully' },
      postgres: { condition: 'service_healthy' },
      kurrentdb: { condition: 'service_healthy' },
    });
  for (const name of ['postgres', 'kurrentdb', 'minio'])
    t.ok(services[name]?.healthcheck, `${name} has a health check`);

  // Each replica has its own /data (the local cache under it); nothing of it is shared.
  t.not(a.volumes?.[0], b.volumes?.[0], 'a data volume each');
  for (const replica of [a, b]) t.match(replica.volumes?.[0], /^[\w-]+:\/data$/);
  t.match(env.GATEWAY_STORAGE_OBJECT_STORE_CACHE_DIR, /^\/data\//, 'the cache on the replica’s own volume');
  t.match(a.healthcheck?.test.join(' '), /\/actuator\/health/, 'replicas are health-checked on the probe');

  // The configuration loader accepts what the replicas are given (with the operator's values filled in).
  const sample = {
    GATEWAY_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    GATEWAY_OIDC_ISSUER: 'https://idp.example.com/realms/main',
    GATEWAY_ROLES_ADMINS: 'ops-lead,platform',
  };
  const given = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(v, sample)]));
  const config = loadConfig({ env: { ...given, GATEWAY_DATA_DIR: tmpdir() }, cwd: tmpdir() });
  t.match(config, {
    eventStore: { backend: 'eventstoredb' },
    storage: { backend: 'object-store' },
  });

  // The proxy names both replicas and checks them on the probe; only its address is a trusted proxy.
  const proxy = services.proxy!;
  t.match(proxy.image, /^caddy:/);
  t.match(proxy.volumes, ['./Caddyfile:/etc/caddy/Caddyfile:ro']);
  const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/);
  t.same(upstreams, ['gateway-a:8080', 'gateway-b:8080'], 'the proxy balances over both replicas');
  t.match(caddyfile, /health_uri \/actuator\/health/);
  const proxyAddress = (proxy.networks as Record<string, { ipv4_address?: string }>).front?.ipv4_address;
  t.equal(env.GATEWAY_SERVER_TRUSTED_PROXIES, proxyAddress, 'the replicas trust exactly the proxy');
});
