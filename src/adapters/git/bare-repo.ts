import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
  // Made beside it and renamed into place: a reader (a fetch, the mirror) never finds a repository half made.
  mkdirSync(dirname(path), { recursive: true });
  const making = `${path}.init-${randomBytes(6).toString('hex')}`;
  try {
    await git(['init', '--bare', '--quiet', '--initial-branch=main', making]);
    await git(['-C', making, 'config', 'core.logAllRefUpdates', 'false']);
    await git(['-C', making, 'config', 'gc.auto', '0']);
    renameSync(making, path);
  } catch (error) {
    // Another caller made it first (the rename finds it there): theirs is used.
    if (!existsSync(join(path, 'HEAD'))) throw error;
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
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
