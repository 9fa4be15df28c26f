import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The gateway package's root (the directory of its package.json), the same from src/ run by tsx and from
 * dist/src/ after a build: where package.json, docs/problems, dist/portal and dist/sbom.cdx.json are found.
 */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();
