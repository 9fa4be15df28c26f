import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import { initBare } from '../../adapters/git/bare-repo.ts';
import type { RemoteGit } from '../../adapters/git/remote-git.ts';
import {
  mirrorAuth,
  mirrorRefs,
  scrubbed,
  servedRefs,
  ServedStorageError,
  type MirrorAuth,
} from '../../adapters/git/mirror-remote.ts';
import { readSecretReference } from '../../adapters/system/secret-reference.ts';
import { fact } from '../../domain/events.ts';
import {
  disabledReport,
  driftReport,
  mainRef,
  mirroredRefs,
  type LastAttempt,
  type MirrorDriftReport,
  type RefMap,
} from '../../domain/mirror/mirror-drift.ts';
import { mirrorUrlOf } from '../../domain/mirror/mirror-url.ts';
import { desiredRefs } from '../../domain/publication/desired-refs.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { liveMarketplaces } from '../../projections/marketplaces/marketplaces.queries.ts';
import { followedTargets, requestAnswered } from '../../projections/mirror/mirror.queries.ts';
import { publicationTarget } from '../../projections/snapshots/snapshots.queries.ts';
import type { Actor, Ports } from '../kernel/ports.ts';
import { requireAdminRole } from '../access/standing.ts';

/** The served catalog as the mirror sees it; null when gateway.catalog.enabled is false. */
export type MirroredCatalog = Readonly<{
  name: string;
  servedRepo: string;
  servesAnything(): Promise<boolean>;
  /** Resolves once no build is scheduled or running: an approval's build follows its answer. */
  idle(): Promise<void>;
}>;

export type MirrorPorts = Pick<
  Ports,
  'pool' | 'store' | 'waiter' | 'gitStore' | 'access' | 'clock' | 'logger' | 'mirror'
>;

/** One name the mirror follows: a live marketplace, the catalog, or a name it still has to clear. */
export type MirrorTarget = Readonly<{
  name: string;
  marketplaceId: number | null;
  kind: 'marketplace' | 'catalog' | 'former';
  /** The served repository (null: nothing is served under the name any more). */
  gitDir: string | null;
  last: LastAttempt | null;
}>;

export type ServedState = Readonly<{ refs: RefMap }> | Readonly<{ refused: string }>;

/**
 * Every name to compare: each live marketplace that serves something, the catalog when it does, and every
 * name an earlier pass pushed to and has not retired (its mirror refs are cleared). In name order; the
 * catalog takes its name before a marketplace of the same name, as on the facade.
 */
export async function mirrorTargets(deps: MirrorPorts, catalog: MirroredCatalog | null): Promise<MirrorTarget[]> {
  const followed = new Map((await followedTargets(deps.pool)).map((f) => [f.name, f]));
  const targets = new Map<string, MirrorTarget>();
  if (catalog && (followed.has(catalog.name) || (await catalog.servesAnything())))
    targets.set(catalog.name, {
      name: catalog.name,
      marketplaceId: null,
      kind: 'catalog',
      gitDir: catalog.servedRepo,
      last: followed.get(catalog.name)?.last ?? null,
    });
  for (const m of await liveMarketplaces(deps.pool)) {
    if (targets.has(m.name)) continue;
    const { approved } = await publicationTarget(deps.pool, m.id);
    if (approved.length === 0 && !followed.has(m.name)) continue;
    const gitDir = deps.gitStore.publishedPath(m.id);
    const last = followed.get(m.name)?.last ?? null;
    targets.set(m.name, { name: m.name, marketplaceId: m.id, kind: 'marketplace', gitDir, last });
  }
  for (const f of followed.values())
    if (!targets.has(f.name))
      targets.set(f.name, { name: f.name, marketplaceId: f.marketplaceId, kind: 'former', gitDir: null, last: f.last });
  return [...targets.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * What the gateway serves under a target, read from its own storage and checked against the events: a
 * published repository that is missing, unreadable, lacks a commit, or lacks a ref the events approve
 * answers `refused` (the mirror then pushes and deletes nothing there). Refs the events do not approve are
 * never mirrored.
 */
export async function servedState(
  deps: MirrorPorts,
  target: MirrorTarget,
  catalog: MirroredCatalog | null,
): Promise<ServedState> {
  try {
    if (target.kind === 'former' || target.gitDir === null) return { refs: new Map() };
    const refs = await servedRefs(target.gitDir, target.name);
    if (target.kind === 'catalog') {
      if (refs === null && (await catalog?.servesAnything()))
        return { refused: `the served catalog repository of ${target.name} is missing while marketplaces are served` };
      return { refs: new Map([...(refs ?? [])].filter(([ref]) => ref === mainRef)) };
    }
    const { approved, tip } = await publicationTarget(deps.pool, target.marketplaceId!);
    const desired = desiredRefs(approved, tip).refs;
    if (refs === null && desired.size > 0) return { refused: `the published repository of ${target.name} is missing` };
    const lacking = [...desired].filter(([ref, sha]) => refs?.get(ref) !== sha).map(([ref]) => ref);
    if (lacking.length > 0)
      return {
        refused: `the published repository of ${target.name} lacks ${lacking.slice(0, 3).join(', ')}${lacking.length > 3 ? ` and ${lacking.length - 3} more` : ''} that the events approve`,
      };
    return { refs: desired };
  } catch (error) {
    if (error instanceof ServedStorageError) return { refused: error.reason };
    throw error;
  }
}

/** The push credentials, read at use (a rotated file or variable is picked up); the error never holds a value. */
export function credentialsOf(deps: Pick<Ports, 'mirror'>): MirrorAuth {
  const reference = deps.mirror.credentials;
  return mirrorAuth(reference === null ? null : readSecretReference(reference));
}

/** The credentials, or why they cannot be read (a pass and a drift read report it per name instead of failing). */
export function credentialsOrProblem(deps: Pick<Ports, 'mirror'>): { auth: MirrorAuth; problem: string | null } {
  try {
    return { auth: credentialsOf(deps), problem: null };
  } catch (error) {
    return { auth: null, problem: error instanceof Error ? error.message : 'the credentials cannot be read' };
  }
}

export type RemoteState = Readonly<{ refs: RefMap }> | Readonly<{ unreachable: string }>;

export async function remoteState(remote: RemoteGit, url: string, auth: MirrorAuth): Promise<RemoteState> {
  try {
    return { refs: mirroredRefs(await mirrorRefs(remote, url, auth)) };
  } catch (error) {
    return { unreachable: scrubbed(auth, error) };
  }
}

/** Waits (bounded) until the read models and publication have applied everything appended so far. */
export async function settledReadModels(deps: Pick<Ports, 'store' | 'waiter' | 'logger'>): Promise<void> {
  try {
    await deps.waiter.waitFor(await deps.store.head(), ['marketplaces', 'snapshots', 'publication', 'mirror-status']);
  } catch (error) {
    deps.logger.warn({ err: error }, 'mirror: the read models lag; comparing with what they hold');
  }
}

/** An empty repository to push deletions from when nothing is served under a name any more. */
export const emptyRepo = (deps: Pick<Ports, 'gitStore'>): Promise<string> =>
  initBare(join(deps.gitStore.root, 'mirror', 'empty.git'));

/** GET /api/v1/mirror/drift: one report per followed name, computed now (the mirror asked by ls-remote). */
export async function mirrorDrift(
  deps: MirrorPorts,
  catalog: MirroredCatalog | null,
  actor: Actor,
): Promise<MirrorDriftReport[]> {
  await requireAdminRole(deps, actor);
  return driftNow(deps, catalog);
}

async function driftNow(deps: MirrorPorts, catalog: MirroredCatalog | null): Promise<MirrorDriftReport[]> {
  const template = deps.mirror.url;
  if (template === null) return [disabledReport];
  await settledReadModels(deps);
  const { auth, problem: authProblem } = credentialsOrProblem(deps);
  const reports: MirrorDriftReport[] = [];
  for (const target of await mirrorTargets(deps, catalog)) {
    const url = mirrorUrlOf(template, target.name);
    const served = await servedState(deps, target, catalog);
    const mirror =
      authProblem === null ? await remoteState(deps.gitStore.remote, url, auth) : { unreachable: authProblem };
    reports.push(driftReport({ name: target.name, url, served, mirror, last: target.last }));
  }
  return reports;
}

/**
 * POST /api/v1/mirror/reconcile: asks the leader's mirror duty for a pass (recorded, so any replica may take
 * the request) and waits, bounded, until a pass has answered it; then the same body as the drift read. A wait
 * that runs out answers with what is still pending.
 */
export async function reconcileMirror(
  deps: MirrorPorts,
  catalog: MirroredCatalog | null,
  actor: Actor,
  meta: CommandMeta,
): Promise<MirrorDriftReport[]> {
  await requireAdminRole(deps, actor);
  if (deps.mirror.url === null) return [disabledReport];
  const requestId = randomUUID();
  const requested = fact('mirror-reconcile-requested', { requestId });
  await appendFacts(deps.store, streams.mirror(), [requested], metadataOf(meta), 'any');
  const deadline = Date.now() + deps.mirror.reconcileWaitMs;
  while (Date.now() < deadline && !(await requestAnswered(deps.pool, requestId)))
    await new Promise((resolve) => setTimeout(resolve, 100));
  return driftNow(deps, catalog);
}
