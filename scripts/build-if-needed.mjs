// prestart: compile to dist/ when it is missing or older than any source file, so that
// `npm ci && npm start` works on a fresh clone and a restart after an edit runs the edit. The same for
// the portal (Vite, into dist/portal).
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

// `--portal`: only the portal (the test command, before tests that load it in a browser).
const portalOnly = process.argv.includes('--portal');
if (!portalOnly && stale('dist/src/main.js', Math.max(newest('src'), configs))) {
  process.stderr.write('building the gateway (tsc)…\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
if (stale('dist/portal/index.html', Math.max(newest('portal'), configs))) {
  process.stderr.write('building the portal (vite)…\n');
  // The portal is a package of its own (portal/package.json, installed by the root's postinstall), so
  // that its React never meets the one tap's reporter needs.
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], {
    cwd: 'portal',
    stdio: 'inherit',
  });
}
