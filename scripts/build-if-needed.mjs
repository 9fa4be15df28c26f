// prestart: compile to dist/ when it is missing or older than any source file, so that
// `npm ci && npm start` works on a fresh clone and a restart after an edit runs the edit. The same for
// the portal (Vite, into dist/portal) and the SBOM (dist/sbom.cdx.json, from the lock files: scripts/sbom.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    if (entry.name === 'node_modules') return latest;
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
const stale = (target, sources) => !existsSync(target) || statSync(target).mtimeMs < sources;
const configs = Math.max(statSync('package.json').mtimeMs, statSync('tsconfig.json').mtimeMs);

// `--portal`, `--sbom`: only those (the test command, before the tests that need them); none: everything.
const only = ['--portal', '--sbom'].filter((flag) => process.argv.includes(flag));
const wanted = (flag) => only.length === 0 || only.includes(flag);
if (only.length === 0 && stale('dist/src/main.js', Math.max(newest('src'), configs))) {
  process.stderr.write('building the gateway (tsc)…\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
if (wanted('--portal') && stale('dist/portal/index.html', Math.max(newest('portal'), configs))) {
  process.stderr.write('building the portal (vite)…\n');
  // The portal is a package of its own (portal/package.json, installed by the root's postinstall), so
  // that its React never meets the one tap's reporter needs.
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], {
    cwd: 'portal',
    stdio: 'inherit',
  });
}
// The SBOM describes the lock files (and which of the portal's packages its source imports).
const sbomSources = ['package-lock.json', 'portal/package-lock.json', 'scripts/sbom.mjs'].map(
  (f) => statSync(f).mtimeMs,
);
if (wanted('--sbom') && stale('dist/sbom.cdx.json', Math.max(...sbomSources, newest('portal/src'), configs))) {
  process.stderr.write('writing the SBOM (cyclonedx-npm)…\n');
  execFileSync(process.execPath, ['scripts/sbom.mjs'], { stdio: 'inherit' });
}
