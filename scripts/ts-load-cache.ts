// Loaded with `--import` into every Node process `npm test` starts (the test files, and through NODE_OPTIONS the
// gateways and CLIs they start): the project's TypeScript files are loaded from a cache of their type-stripped
// JavaScript, and V8's compile cache is on. Node strips a file's types again in every process that loads it, and
// compiles every module again; with a few hundred processes each loading the gateway's ~500 modules, that was
// about half the CPU each process spent before running a test.
//
// The cache is content-addressed: a file is looked up by the hash of its bytes (and the stripper's version), so
// an edited file is stripped again and a stale entry is never used. Stripping is amaro's strip-only mode, the
// stripper Node itself bundles: types become blanks, so every line and column stays where it was and stack
// traces point at the TypeScript source. Only files outside node_modules are handled; everything else loads as
// Node loads it, except the imports of bundled dependencies (below). `rm -rf node_modules/.cache/gateway-test`
// empties the caches.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, enableCompileCache, registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const modules = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
const root = join(modules, '.cache', 'gateway-test');
const amaroVersion = (JSON.parse(readFileSync(join(modules, 'amaro', 'package.json'), 'utf8')) as { version: string })
  .version;
const strippedDir = join(root, `stripped-amaro-${amaroVersion}`);
mkdirSync(strippedDir, { recursive: true });
enableCompileCache(join(root, 'v8'));

type Amaro = { transformSync(code: string, options: { mode: 'strip-only' }): { code: string } };
let amaro: Amaro | null = null;

function stripped(path: string): string {
  const source = readFileSync(path);
  const cached = join(strippedDir, `${createHash('sha256').update(source).digest('hex')}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  amaro ??= require('amaro') as Amaro;
  const code = amaro.transformSync(source.toString('utf8'), { mode: 'strip-only' }).code;
  // Written whole under another name, then renamed: a process reading it meanwhile never sees half a file.
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, code);
  renameSync(partial, cached);
  return code;
}

// The run's pre-bundled dependencies (scripts/test-vendor.ts): an import of a listed package written in one of
// the project's files loads the bundle's entry instead. A package's own imports are left to Node.
const vendorDir = process.env.GATEWAY_TEST_VENDOR;
const vendor: Record<string, string> = vendorDir
  ? (JSON.parse(readFileSync(join(vendorDir, 'map.json'), 'utf8')) as Record<string, string>)
  : {};
const projectRoot = pathToFileURL(join(modules, '..', '/')).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL ?? '';
    const bundled = vendor[specifier];
    if (
      bundled &&
      parent.startsWith(projectRoot) &&
      !parent.includes('/node_modules/') &&
      context.conditions.includes('import')
    )
      return { url: bundled, format: 'module', shortCircuit: true };
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/'))
      return nextLoad(url, context);
    return { format: 'module', source: stripped(fileURLToPath(url)), shortCircuit: true };
  },
});
