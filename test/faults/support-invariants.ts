// What must hold after a fault, read only through the public API and the real git client: the facade
// serves exactly the approved set, every acknowledged act is on the ledger once, the ledger has no gap
// and no duplicate, and nothing half-written shows.
import { rmSync } from 'node:fs';
import { gitClient } from '../support/upstream.ts';
import {
  probeUnansweredNames,
  refreshWorld,
  type ActContext,
  type Claim,
  type KnownToken,
  type MarketplaceView,
} from './support-acts.ts';
import type { Session } from './support.ts';

export type LedgerEntry = Readonly<{
  id: number;
  principal: string;
  actorType: string;
  marketplace: string;
  marketplaceId: number | null;
  event: string;
  sha: string | null;
  detail: string | null;
  tokenId: number | null;
}>;

/** The keys an entry counts under, matching the claims acts make (support-acts.ts). */
export function ledgerKeys(entry: LedgerEntry): string[] {
  const snapshot = /^snapshot (\d+)/.exec(entry.detail ?? '')?.[1];
  const id = entry.marketplaceId;
  switch (entry.event) {
    case 'marketplace-registered':
      return [`registered|name=${entry.marketplace}`, `registered|name=${entry.marketplace}|id=${id}`];
    case 'marketplace-removed':
      return [`removed|id=${id}`];
    case 'ingest-succeeded':
      return [`ingested|id=${id}`];
    case 'ingest-failed':
      return [`ingest-failed|id=${id}`];
    case 'snapshot-captured':
      return [`captured|snapshot=${snapshot}`];
    case 'snapshot-approved':
      return [`approved|snapshot=${snapshot}`, `approved-sha|id=${id}|sha=${entry.sha}`];
    case 'snapshot-rejected':
      return [`rejected|snapshot=${snapshot}`];
    case 'snapshot-revoked':
      return [`revoked|snapshot=${snapshot}`];
    case 'token-created': {
      const token = /^token (\d+) '([^']*)'/.exec(entry.detail ?? '');
      return token ? [`token|name=${token[2]}`, `token|id=${token[1]}`] : [];
    }
    case 'upload-pack':
      return [`upload-pack|token=${entry.tokenId}`];
    case 'roles-read':
      return ['roles-read'];
    default:
      return [];
  }
}

/** The whole ledger, oldest first, through GET /api/v1/audit paged by `before`. */
export async function readLedger(api: Session): Promise<{ entries: LedgerEntry[]; total: number }> {
  const pages: LedgerEntry[][] = [];
  let before = 0;
  let total = 0;
  for (;;) {
    const page = await api.get(`/api/v1/audit?limit=10000&before=${before}`);
    if (page.status !== 200) throw new Error(`GET /api/v1/audit answered ${page.status}: ${page.text}`);
    pages.push(page.body.entries);
    total = page.body.total;
    if (page.body.nextBefore === undefined) break;
    before = page.body.nextBefore;
  }
  return { entries: pages.flat().reverse(), total };
}

function gapsAndDuplicates(entries: readonly LedgerEntry[], total: number): string[] {
  const ids = entries.map((e) => e.id);
  const seen = new Set<number>();
  const duplicates = new Set<number>();
  for (const id of ids) (seen.has(id) ? duplicates : seen).add(id);
  const problems: string[] = [];
  if (duplicates.size > 0) problems.push(`ledger ids appear twice: ${[...duplicates].join(', ')}`);
  const missing: number[] = [];
  const last = ids.reduce((a, b) => Math.max(a, b), 0);
  for (let id = 1; id <= last && missing.length < 20; id++) if (!seen.has(id)) missing.push(id);
  if (missing.length > 0) problems.push(`ledger ids missing: ${missing.join(', ')}`);
  if (total !== entries.length) problems.push(`the ledger reports total ${total} but its pages hold ${entries.length}`);
  return problems;
}

/**
 * Entries appended after the read: no client acts once the barrier has answered, so each is named. The
 * gateway's own reactions may still land (actor type system: the start-up sweep vetting a snapshot whose
 * vetting the fault interrupted, a debounced catalog rebuild); their ids are checked with all the others.
 */
async function appendedAfter(api: Session, entries: readonly LedgerEntry[]): Promise<string[]> {
  const last = entries.at(-1)?.id ?? 0;
  const newest = await api.get('/api/v1/audit?limit=20');
  if (newest.status !== 200) return [`GET /api/v1/audit answered ${newest.status}: ${newest.text}`];
  return (newest.body.entries as LedgerEntry[])
    .filter((e) => e.id > last && e.actorType !== 'system')
    .map((e) => `ledger entry ${e.id} appeared after the barrier: ${JSON.stringify(e)}`);
}

function countKeys(entries: readonly LedgerEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of entries) for (const key of ledgerKeys(entry)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function claimsHeld(claims: readonly Claim[], counts: ReadonlyMap<string, number>): string[] {
  const bounds = new Map<string, { min: number; max: number }>();
  for (const claim of claims) {
    const b = bounds.get(claim.key) ?? { min: 0, max: 0 };
    bounds.set(claim.key, { min: b.min + claim.min, max: b.max + claim.max });
  }
  return [...bounds]
    .filter(([key, b]) => (counts.get(key) ?? 0) < b.min || (counts.get(key) ?? 0) > b.max)
    .map(([key, b]) => `ledger holds ${counts.get(key) ?? 0} entries for ${key}, acts allow ${b.min}..${b.max}`);
}

/** refs/heads/main at the newest approval, HEAD with it, and one pinned ref per approved snapshot. */
function expectedRefs(marketplace: MarketplaceView, entries: readonly LedgerEntry[]): Record<string, string> {
  const approved = marketplace.snapshots.filter((s) => s.state === 'approved').map((s) => s.sha);
  const newest = entries.findLast((e) => e.event === 'snapshot-approved' && e.marketplaceId === marketplace.id);
  const refs: Record<string, string> = Object.fromEntries(approved.map((sha) => [`refs/snapshots/${sha}`, sha]));
  if (newest?.sha && approved.includes(newest.sha)) {
    refs.HEAD = newest.sha;
    refs['refs/heads/main'] = newest.sha;
  }
  return refs;
}

async function facadeRefs(ctx: ActContext, checker: KnownToken, name: string): Promise<Record<string, string> | null> {
  const client = gitClient(ctx.t, checker.secret);
  const listed = await client.run(['ls-remote', `${ctx.base()}/git/${name}`]);
  rmSync(client.home, { recursive: true, force: true });
  if (!listed.ok) return null;
  return Object.fromEntries(
    listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t').reverse() as [string, string]),
  );
}

const sorted = (refs: Record<string, string> | null) =>
  refs === null ? 'not served' : JSON.stringify(Object.fromEntries(Object.entries(refs).sort()));

/**
 * The barrier answers once the ledger has its entry; the publication of an approval left unanswered by
 * the fault may still be converging after it, so each marketplace gets `settleMs` for its facade refs and
 * its servedSha to agree with the approved set (each settling is noted; a disagreement past it is a violation).
 */
const settleMs = 5000;

async function facadeMatches(ctx: ActContext, checker: KnownToken, entries: readonly LedgerEntry[]): Promise<string[]> {
  const problems: string[] = [];
  for (const listed of ctx.state.live) {
    const wanted = expectedRefs(listed, entries);
    const expected = Object.keys(wanted).length === 0 ? null : wanted;
    const started = Date.now();
    let marketplace = listed;
    for (;;) {
      const served = await facadeRefs(ctx, checker, marketplace.name);
      const found: string[] = [];
      if (sorted(served) !== sorted(expected))
        found.push(`facade of ${marketplace.name} serves ${sorted(served)}; the approved set is ${sorted(expected)}`);
      if (marketplace.servedSha !== (wanted['refs/heads/main'] ?? null))
        found.push(`${marketplace.name} reports servedSha ${marketplace.servedSha}, newest approval ${wanted.HEAD}`);
      if (found.length === 0) {
        if (marketplace !== listed)
          ctx.state.notes.push(`trial ${ctx.state.trial}: ${listed.name} settled after the barrier`);
        break;
      }
      if (Date.now() - started > settleMs) {
        problems.push(...found);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      await refreshWorld(ctx);
      marketplace = ctx.state.live.find((m) => m.id === listed.id) ?? marketplace;
    }
  }
  const liveNames = new Set(ctx.state.live.map((m) => m.name));
  for (const name of ctx.state.removedNames.filter((n) => !liveNames.has(n))) {
    const served = await facadeRefs(ctx, checker, name);
    if (served !== null) problems.push(`the removed marketplace ${name} is still served: ${sorted(served)}`);
  }
  return problems;
}

/** Marketplaces and snapshots as listed agree with the ledger, and each listed thing is whole. */
async function noHalfWritten(ctx: ActContext, entries: readonly LedgerEntry[], counts: ReadonlyMap<string, number>) {
  const problems: string[] = [];
  const count = (key: string) => counts.get(key) ?? 0;
  const removed = new Set(entries.filter((e) => e.event === 'marketplace-removed').map((e) => e.marketplaceId));
  const listed = new Set(ctx.state.live.map((m) => m.id));
  for (const entry of entries.filter((e) => e.event === 'marketplace-registered')) {
    if (!removed.has(entry.marketplaceId) && !listed.has(entry.marketplaceId!))
      problems.push(`marketplace ${entry.marketplace} (${entry.marketplaceId}) registered, never removed, not listed`);
  }
  for (const marketplace of ctx.state.live) {
    if (count(`registered|name=${marketplace.name}|id=${marketplace.id}`) !== 1 || removed.has(marketplace.id))
      problems.push(
        `listed marketplace ${marketplace.name} (${marketplace.id}) has no single registration on the ledger`,
      );
    // The name reservation: a second registration under a live name is refused.
    const again = await ctx.api.post('/api/v1/marketplaces', { name: marketplace.name, url: marketplace.url });
    if (again.status !== 409)
      problems.push(`registering the live name ${marketplace.name} again answered ${again.status}`);
    for (const snapshot of marketplace.snapshots) problems.push(...(await snapshotWhole(ctx, snapshot, count)));
  }
  for (const id of ctx.state.captured) {
    const report = await ctx.api.get(`/api/v1/snapshots/${id}/vetting`);
    if (report.status !== 200 || report.body.run === null)
      problems.push(`snapshot ${id}, captured by an acknowledged ingest, has no vetting run (${report.status})`);
  }
  return problems;
}

async function snapshotWhole(
  ctx: ActContext,
  snapshot: { id: number; state: string },
  count: (key: string) => number,
): Promise<string[]> {
  const problems: string[] = [];
  const of = `snapshot ${snapshot.id} (${snapshot.state})`;
  if (count(`captured|snapshot=${snapshot.id}`) !== 1) problems.push(`${of} has no single capture on the ledger`);
  const decisions = {
    approved: count(`approved|snapshot=${snapshot.id}`),
    rejected: count(`rejected|snapshot=${snapshot.id}`),
  };
  const consistent =
    snapshot.state === 'held'
      ? decisions.approved === 0 && decisions.rejected === 0
      : snapshot.state === 'approved'
        ? decisions.approved === 1
        : snapshot.state === 'rejected'
          ? decisions.approved === 0
          : count(`revoked|snapshot=${snapshot.id}`) > 0;
  if (!consistent) problems.push(`${of} disagrees with the ledger: ${JSON.stringify(decisions)}`);
  if (!ctx.state.verified.has(snapshot.id)) {
    const content = await ctx.api.get(`/api/v1/snapshots/${snapshot.id}/content`);
    if (content.status === 200) ctx.state.verified.add(snapshot.id);
    else problems.push(`${of}: its captured content does not read (${content.status}: ${content.text.slice(0, 200)})`);
  }
  return problems;
}

/** Every token listed was issued on the ledger; every token the suite holds is listed and authenticates. */
async function tokensWhole(ctx: ActContext, entries: readonly LedgerEntry[], counts: ReadonlyMap<string, number>) {
  const problems: string[] = [];
  const listing = await ctx.api.get('/api/v1/tokens');
  if (listing.status !== 200) return [`GET /api/v1/tokens answered ${listing.status}`];
  const listed = new Map<number, any>((listing.body as any[]).map((token) => [token.id, token]));
  for (const id of listed.keys())
    if ((counts.get(`token|id=${id}`) ?? 0) !== 1)
      problems.push(`token ${id} is listed without one token-created entry`);
  for (const entry of entries.filter((e) => e.event === 'token-created' && e.principal === ctx.api.user)) {
    const id = Number(/^token (\d+)/.exec(entry.detail ?? '')?.[1]);
    if (!listed.has(id)) problems.push(`token ${id} was created on the ledger but is not listed`);
  }
  for (const token of ctx.state.tokens) {
    if (listed.get(token.id)?.revokedAt !== null) problems.push(`token ${token.id} is not listed as active`);
    const check = await fetch(`${ctx.base()}/status/v1/snapshots`, {
      method: 'POST',
      body: '{"holdings":[]}',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`x:${token.secret}`).toString('base64')}`,
      },
    });
    await check.arrayBuffer();
    if (check.status !== 200) problems.push(`token ${token.id} does not authenticate (${check.status})`);
  }
  return problems;
}

/** Each acknowledged clone received a commit the ledger shows approved for that marketplace. */
function receivedApproved(ctx: ActContext, counts: ReadonlyMap<string, number>): string[] {
  return ctx.state.received
    .filter(
      (r) => r.trial === ctx.state.trial && (counts.get(`approved-sha|id=${r.marketplaceId}|sha=${r.sha}`) ?? 0) === 0,
    )
    .map((r) => `a clone of ${r.name} received ${r.sha}, which the ledger never shows approved`);
}

/**
 * Every invariant, after the fault and the recovery. GET /api/v1/roles first: it appends roles-read
 * and answers once the ledger has reached it, so the ledger read after it holds everything before.
 */
export async function checkInvariants(ctx: ActContext, checker: KnownToken): Promise<string[]> {
  const barrier = await ctx.api.get('/api/v1/roles');
  if (barrier.status !== 200) return [`GET /api/v1/roles answered ${barrier.status}: ${barrier.text}`];
  ctx.state.history.push({
    trial: ctx.state.trial,
    kind: 'roles-read',
    target: 'barrier',
    outcome: 'acked',
    status: 200,
    claims: [{ key: 'roles-read', min: 1, max: 1 }],
  });
  await refreshWorld(ctx);
  const { entries, total } = await readLedger(ctx.api);
  const counts = countKeys(entries);
  const found = [
    ...gapsAndDuplicates(entries, total),
    ...(await appendedAfter(ctx.api, entries)),
    ...claimsHeld(
      ctx.state.history.flatMap((act) => act.claims),
      counts,
    ),
    ...(await facadeMatches(ctx, checker, entries)),
    ...(await noHalfWritten(ctx, entries, counts)),
    ...(await tokensWhole(ctx, entries, counts)),
    ...receivedApproved(ctx, counts),
  ];
  // Last, as it registers (its own claims are checked after the next trial).
  await probeUnansweredNames(ctx);
  return found;
}
