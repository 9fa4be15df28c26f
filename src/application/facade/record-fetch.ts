// What the git facade records of a fetch: the ref advertisement (info-refs) and each wanted object
// (upload-pack), appended before anything is served. These are the hot path of every clone, so each
// is one append and nothing else: no read, no wait on the read models (the ledger catches up itself).
import { appendFacts } from '../../adapters/eventstore/append-facts.ts';
import { metadataOf } from '../kernel/run-command.ts';
import type { CredentialKind } from '../../domain/access/access.events.ts';
import { fact, type DomainEvent } from '../../domain/events.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { Ports } from '../kernel/ports.ts';

/** Which served repository was read and how the caller signed in (the virtual catalog has no marketplace id). */
export type FetchAccess = Readonly<{
  marketplaceId: number | null;
  marketplace: string;
  credentialKind: CredentialKind;
}>;

/** A wanted object and the advertised ref it was reached by (null when none names it). */
export type Want = Readonly<{ sha: string; ref: string | null }>;

type FetchPorts = Pick<Ports, 'store'>;

async function record(deps: FetchPorts, access: FetchAccess, event: DomainEvent, meta: CommandMeta): Promise<void> {
  await appendFacts(deps.store, streams.access(access.marketplaceId), [event], metadataOf(meta), 'any');
}

/** The refs were asked for: main and the commit it resolves to. A failed append serves no refs. */
export const recordAdvertisement = (
  deps: FetchPorts,
  access: FetchAccess,
  mainSha: string | null,
  meta: CommandMeta,
): Promise<void> => record(deps, access, fact('info-refs', { ...access, ref: 'refs/heads/main', sha: mainSha }), meta);

/** The pack send begins: one entry per wanted object. A failed append refuses the fetch. */
export const recordFetch = (
  deps: FetchPorts,
  access: FetchAccess,
  wants: readonly Want[],
  meta: CommandMeta,
): Promise<void> => record(deps, access, fact('upload-pack', { ...access, wants }), meta);
