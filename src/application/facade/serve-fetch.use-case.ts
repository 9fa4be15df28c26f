// What the git facade serves a fetch from: the repository behind a name (the virtual catalog or a live
// marketplace), its ref advertisement (recorded before it is answered), a v2 ref list, and the pack
// (its wanted objects recorded before the first byte leaves). The route parses, authenticates and
// streams what these answer. This is the hot path of every clone: each step reads what it did at the
// edge before, no more.
import type { Readable, Writable } from 'node:stream';
import { encodePktLine } from '../../adapters/git/pkt-line.ts';
import type { ServedView } from '../../adapters/git/served-view.ts';
import { streamUploadPack } from '../../adapters/git/upload-pack.ts';
import { readUploadPackRequest, requestLimits } from '../../adapters/git/upload-pack-body.ts';
import type { CredentialKind } from '../../domain/access/access.events.ts';
import { advertisedFrom, attributeWant, isAdvertised, type Advertised } from '../../domain/access/ref-attribution.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { liveMarketplaceByName } from '../../projections/marketplaces/marketplaces.queries.ts';
import type { Ports } from '../kernel/ports.ts';
import { recordAdvertisement, recordFetch, type FetchAccess } from './record-fetch.ts';

/** How large an upload-pack request may be (the route refuses a longer declared body before reading it). */
export const uploadPackLimits: Readonly<{ maxBodyBytes: number }> = requestLimits;

/** The virtual catalog as the facade serves it (catalog-builder.ts), when it is enabled. */
export type ServedCatalog = Readonly<{ name: string; servedRepo: string; servedView(): Promise<ServedView> }>;

export type ServeFetchPorts = Pick<Ports, 'pool' | 'gitStore' | 'catalog'> &
  Readonly<{ catalogBuilder: ServedCatalog | null }>;

/** A repository the facade serves, as of this request: its advertised refs and where git finds it. */
export type ServedRepository = Readonly<{
  /** The virtual catalog is served with no marketplace id (its ledger entries carry its name alone). */
  marketplace: Readonly<{ id: number | null; name: string }>;
  repo: string;
  view: ServedView;
  advertised: Advertised;
}>;

/** Who fetches, as the ledger records it. */
export type Fetcher = Readonly<{ credentialKind: CredentialKind }>;

type Source = Pick<ServedRepository, 'marketplace' | 'repo'> & Readonly<{ view(): Promise<ServedView> }>;

/**
 * The repository served under `name`: the virtual catalog under its own name (before a marketplace of
 * that name, with the same credentials, scopes and accounting), else a live marketplace.
 */
async function sourceOf(deps: ServeFetchPorts, name: string): Promise<Source | null> {
  const catalog = deps.catalog.enabled ? deps.catalogBuilder : null;
  if (catalog && name === catalog.name) {
    return { marketplace: { id: null, name }, repo: catalog.servedRepo, view: () => catalog.servedView() };
  }
  const marketplace = await liveMarketplaceByName(deps.pool, name);
  if (!marketplace) return null;
  return {
    marketplace,
    repo: deps.gitStore.publishedPath(marketplace.id),
    view: () => deps.gitStore.servedView(marketplace.id),
  };
}

/** The repository served under `name`, or null when there is none or it serves nothing yet (no main). */
export async function servedRepository(deps: ServeFetchPorts, name: string): Promise<ServedRepository | null> {
  const source = await sourceOf(deps, name);
  if (!source) return null;
  const view = await source.view();
  const advertised = advertisedFrom(view.refs);
  if (advertised.main === null) return null;
  return { marketplace: source.marketplace, repo: source.repo, view, advertised };
}

/** What every access entry of a served repository says: which one, and how the caller signed in. */
const accessOf = ({ marketplace }: ServedRepository, fetcher: Fetcher): FetchAccess => ({
  marketplaceId: marketplace.id,
  marketplace: marketplace.name,
  credentialKind: fetcher.credentialKind,
});

/** The ref advertisement of `served` for `version`, recorded first (a failed append advertises nothing). */
export async function advertiseRefs(
  deps: Pick<Ports, 'store'>,
  served: ServedRepository,
  fetcher: Fetcher,
  version: 0 | 2,
  meta: CommandMeta,
): Promise<Buffer> {
  await recordAdvertisement(deps, accessOf(served, fetcher), served.advertised.main, meta);
  return served.view.advertisement(version);
}

/** What the pack send is told, once: why the ledger refused it, and how many bytes went out (metrics). */
export type PackWatch = Readonly<{
  refused(error: unknown): void;
  sent(bytes: number, complete: boolean): void;
}>;

/**
 * The answer to an upload-pack request: refused before git runs (`close`: the rest of the body is
 * unread, so the connection closes), a v2 ref list, git's own "not our ref" (a pkt-line in the result
 * stream), or the pack, streamed by `send` to a response whose status and headers are written.
 */
export type UploadPackAnswer =
  | Readonly<{ kind: 'refused'; status: 400 | 413; reason: string; close: boolean }>
  | Readonly<{ kind: 'refs'; refs: Buffer }>
  | Readonly<{ kind: 'not-our-ref'; error: Buffer }>
  | Readonly<{ kind: 'pack'; send(out: Writable, watch: PackWatch): void }>;

export type UploadPackInput = Readonly<{
  body: Readable;
  version: 0 | 2;
  gzip: boolean;
  fetcher: Fetcher;
  /** Who fetches, when: taken as the pack is about to start. */
  meta(): CommandMeta;
}>;

/** A fetch (v0, or v2 `fetch`) or a v2 `ls-refs` on a served repository. */
export async function uploadPack(
  deps: Pick<Ports, 'store'>,
  served: ServedRepository,
  input: UploadPackInput,
): Promise<UploadPackAnswer> {
  const { version } = input;
  const read = await readUploadPackRequest(input.body, { version, gzip: input.gzip });
  // The rest of a refused body is never read: the connection closes after the answer.
  if (!read.ok) return { kind: 'refused', status: read.status, reason: read.reason, close: true };
  const { body, request: parsed } = read;
  if (version === 2 && parsed.command !== 'ls-refs' && parsed.command !== 'fetch') {
    return {
      kind: 'refused',
      status: 400,
      reason: `unsupported protocol v2 command '${parsed.command ?? ''}'`,
      close: false,
    };
  }
  // The refs alone, answered from the served view (no pack, nothing recorded).
  if (version === 2 && parsed.command === 'ls-refs') return { kind: 'refs', refs: await served.view.lsRefs(body) };
  const foreign = parsed.wants.find((want) => !isAdvertised(served.advertised, want));
  if (foreign !== undefined || parsed.wantRefs.length > 0) {
    // Answered inside the protocol, so the client shows "remote error: upload-pack: not our ref".
    return {
      kind: 'not-our-ref',
      error: encodePktLine(`ERR upload-pack: not our ref ${foreign ?? parsed.wantRefs[0]}\n`),
    };
  }
  // One ledger entry per wanted object (git may send the same want twice, for HEAD and for main)
  const wants = [...new Set(parsed.wants)].map((sha) => ({ sha, ref: attributeWant(served.advertised, sha) }));
  const access = accessOf(served, input.fetcher);
  return {
    kind: 'pack',
    send: (out, watch) =>
      streamUploadPack({
        repo: served.repo,
        version,
        body,
        out,
        // The ledger append is synchronous: when it fails, nothing is served.
        beforePack: () => recordFetch(deps, access, wants, input.meta()),
        refused: watch.refused,
        sent: watch.sent,
      }),
  };
}
