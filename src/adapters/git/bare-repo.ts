import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git-process.ts';
import { ensureStamp } from './served-view.ts';

/**
 * Creates the bare repository at `path` unless it exists; returns `path`. Every repository the gateway
 * keeps (quarantine, published, catalog work and served) is set up alike: `main` as HEAD, no reflog
 * (a pruned object must not stay reachable through one), and no automatic gc: git would otherwise start
 * one after a fetch or push, beside a served fetch or a running convergence. The gateway prunes and
 * packs at moments of its own choosing (`pruneUnreachable`, the catalog's tidy pass).
 */
export async function initBare(path: string): Promise<string> {
  if (existsSync(join(path, 'HEAD'))) return path;
  mkdirSync(path, { recursive: true });
  await git(['init', '--bare', '--quiet', '--initial-branch=main', path]);
  await git(['-C', path, 'config', 'core.logAllRefUpdates', 'false']);
  await git(['-C', path, 'config', 'gc.auto', '0']);
  return path;
}

/** A repository the facade serves: as initBare, with the stamp its cached views are checked by (served-view.ts). */
export async function initServed(path: string): Promise<string> {
  await initBare(path);
  ensureStamp(path);
  return path;
}

/** Drops every object no ref reaches (after a withdrawal, the content must not be fetchable by id). */
export async function pruneUnreachable(repo: string): Promise<void> {
  await git(['-C', repo, 'reflog', 'expire', '--expire=now', '--all']);
  await git(['-C', repo, 'gc', '--prune=now', '--quiet'], { timeoutMs: 600_000 });
}
