// prestart: compile to dist/ when it is missing or older than any source file, so that
// `npm ci && npm start` works on a fresh clone and a restart after an edit runs the edit.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);

const target = 'dist/src/main.js';
const sources = Math.max(newest('src'), statSync('package.json').mtimeMs, statSync('tsconfig.json').mtimeMs);
if (!existsSync(target) || statSync(target).mtimeMs < sources) {
  process.stderr.write('building the gateway (tsc)…\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
