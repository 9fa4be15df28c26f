import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

/**
 * A fresh directory under the system's temporary directory, removed with everything in it when `t` ends.
 * Teardowns run last-registered first, so what a test starts after making it (a server over it) stops first.
 */
export function scratchDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
