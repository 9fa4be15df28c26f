import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import t from 'tap';
import type { HttpApp } from '../../../src/http/http-deps.ts';
import { sbomRoute } from '../../../src/http/actuator/sbom.route.ts';
import { toProblem, sendProblem } from '../../../src/http/problems.ts';
import { expectJson, expectProblem, machine, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

// `/actuator/sbom`: the running build's CycloneDX JSON (generated at build time from the lock file
// with `@cyclonedx/cyclonedx-npm`), authenticated (a session or a machine credential); `gateway sbom` prints it.
// The test command writes dist/sbom.cdx.json first (scripts/build-if-needed.mjs --sbom).

type Component = { 'bom-ref': string; group?: string; name: string; version?: string; purl?: string };
type Bom = {
  bomFormat: string;
  specVersion: string;
  serialNumber: string;
  metadata: { component: Component };
  components: Component[];
  dependencies: Array<{ ref: string; dependsOn?: string[] }>;
};

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };
const fullName = (c: Component) => (c.group ? `${c.group}/${c.name}` : c.name);
const lockVersion = (lockFile: string, name: string) =>
  (JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, { version: string }> }).packages[
    `node_modules/${name}`
  ]!.version;

/** The CycloneDX JSON schema of the document's version, from the files @cyclonedx/cyclonedx-library ships. */
function cycloneDxValidator(specVersion: string) {
  const dir = join('node_modules', '@cyclonedx', 'cyclonedx-library', 'res', 'schema');
  const load = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as object;
  const ajv = new Ajv({
    strict: false,
    // Offline: every schema the BOM schema refers to is given here; nothing is fetched.
    schemas: Object.fromEntries(
      ['spdx', 'jsf-0.82', 'cryptography-defs'].map((name) => [
        `http://cyclonedx.org/schema/${name}.SNAPSHOT.schema.json`,
        load(`${name}.SNAPSHOT.schema.json`),
      ]),
    ),
    loadSchema: (uri: string) => Promise.reject(new Error(`no network: ${uri}`)),
  });
  addFormats.default(ajv);
  // Formats ajv-formats leaves out (the library's own validator treats them the same way).
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  ajv.addFormat('iri-reference', true);
  return ajv.compile(load(`bom-${specVersion}.SNAPSHOT.schema.json`));
}

t.test('GET /actuator/sbom answers the CycloneDX document of the build to an authenticated caller', async (t) => {
  const gw = await startTestGateway(t, devEnv);

  const anonymous = await gw.fetch('/actuator/sbom');
  await expectProblem(t, anonymous, 401, 'unauthenticated', 'without a caller');

  const response = await gw.fetch('/actuator/sbom', { headers: { 'x-dev-user': 'alice' } });
  t.equal(response.status, 200, 'any signed-in caller reads it, not only an admin');
  t.match(response.headers.get('content-type'), /^application\/vnd\.cyclonedx\+json; version=1\.6/);
  const body = await response.text();
  const bom = JSON.parse(body) as Bom;

  t.equal(bom.bomFormat, 'CycloneDX');
  t.ok(['1.5', '1.6'].includes(bom.specVersion), `spec version ${bom.specVersion} is 1.5 or later`);
  const validate = cycloneDxValidator(bom.specVersion);
  t.ok(validate(bom), `valid against the CycloneDX ${bom.specVersion} JSON schema: ${JSON.stringify(validate.errors)}`);
  t.notOk(validate({ ...bom, components: [{ name: 'no-type' }] }), 'the schema is applied: a component needs a type');

  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };
  t.match(bom.metadata.component, { type: 'application', name: pkg.name, version: pkg.version });
  const gatewayOwn = bom.components.filter((c) => c['bom-ref'].startsWith(`${pkg.name}@`));
  const byName = new Map(gatewayOwn.map((c) => [fullName(c), c]));
  for (const name of ['fastify', 'pg', '@eventstore/db-client', 'jose']) {
    const version = lockVersion('package-lock.json', name);
    t.match(
      byName.get(name),
      { version, purl: `pkg:npm/${name.replace('@', '%40')}@${version}` },
      `${name}@${version}`,
    );
  }
  // Production dependencies only: the build and test tools are not in the image (npm prune --omit=dev).
  for (const dev of ['typescript', 'tap', 'eslint', 'prettier', '@cyclonedx/cyclonedx-npm', 'tsx'])
    t.notOk(byName.has(dev), `no ${dev} (a devDependency)`);

  // The portal's bundle ships inside the gateway: its imported libraries are named, its build tools not.
  const portal = bom.components.find((c) => c.name === 'skill-marketplace-gateway-portal');
  t.ok(portal, 'the portal is a component');
  const portalOwn = new Map(
    bom.components.filter((c) => c['bom-ref'].startsWith(`${portal!.name}@`)).map((c) => [fullName(c), c]),
  );
  t.equal(portalOwn.get('react')?.version, lockVersion('portal/package-lock.json', 'react'), 'react, as locked');
  t.ok(portalOwn.has('@tanstack/react-query'), 'a library the portal imports');
  for (const tool of ['vite', '@vitejs/plugin-react', '@types/react-dom'])
    t.notOk(portalOwn.has(tool), `no ${tool} (it builds the bundle, it is not in it)`);
  const root = bom.dependencies.find((d) => d.ref === bom.metadata.component['bom-ref']);
  t.ok(root?.dependsOn?.includes(portal!['bom-ref']), 'the gateway depends on the portal in the graph');

  // A machine credential of any scope reads it too (a scanner such as Dependency-Track).
  const root_ = session(gw, 'root');
  const credential = await expectJson<{ token: string }>(
    t,
    await root_.post('/api/v1/tokens/machine', {
      principal: 'scanner',
      name: 'SBOM scanner',
      apiScopes: ['roles:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    }),
    201,
  );
  const byMachine = await machine(gw, credential.token).get('/actuator/sbom');
  t.equal(byMachine.status, 200, 'a machine credential');
  t.equal(await byMachine.text(), body, 'the same document');

  // `gateway sbom` prints the same document, byte for byte, with no configuration or database.
  const cli = await promisify(execFile)(process.execPath, ['src/main.ts', 'sbom'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  t.equal(cli.stdout, body, '`gateway sbom` prints what /actuator/sbom serves');
});

t.test('a build without an SBOM answers the problem sbom-not-built (503)', async (t) => {
  const app = Fastify().withTypeProvider() as unknown as HttpApp;
  t.teardown(() => app.close());
  app.setErrorHandler((error, request, reply) =>
    sendProblem(reply, toProblem('http://gateway.test', error, request).problem),
  );
  sbomRoute(app, join(t.testdir(), 'dist', 'sbom.cdx.json'));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const problem = await expectProblem(t, await fetch(`${url}/actuator/sbom`), 503, 'sbom-not-built');
  t.match(problem.detail, /npm run build/);
  t.ok(readFileSync(join('docs', 'problems', 'sbom-not-built.md'), 'utf8').includes('dist/sbom.cdx.json'));
});
