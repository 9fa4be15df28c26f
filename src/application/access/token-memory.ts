// Facade tokens in memory: a token read once by its digest is kept, and what can change of it later (a
// revocation, a publish grant taken out by a marketplace's removal) is learnt from the events, which every
// replica follows. What the events say is applied to every answer, kept or just read: a read racing the
// tokens projection cannot bring back a revoked token. Expiry is compared with the clock at each use.
import type { RecordedEvent } from '../../adapters/eventstore/port.ts';
import type { DomainEventType, EventOf } from '../../domain/events.ts';
import type { TokenRecord } from '../../projections/tokens/tokens.queries.ts';

/** Past this many kept tokens, the memory starts afresh (each is read again at its next use). */
const maxKept = 10_000;

export class TokenMemory {
  /** The events apply() reads the data of. */
  static readonly eventTypes: ReadonlySet<string> = new Set<DomainEventType>([
    'token-revoked',
    'marketplace-push-scopes-removed',
  ]);

  private readonly kept = new Map<string, TokenRecord>();
  private readonly revoked = new Set<number>();
  private readonly pushScopesRemoved = new Map<number, Set<string>>();

  /** The token kept for a digest, as the events leave it, if active at `now`; undefined when none is kept. */
  recall(digest: string, now: Date): TokenRecord | null | undefined {
    const token = this.kept.get(digest);
    return token === undefined ? undefined : this.active(token, now);
  }

  /** Keeps a token read from the read model, and answers it as the events leave it. */
  remember(digest: string, token: TokenRecord, now: Date): TokenRecord | null {
    if (this.kept.size >= maxKept) this.kept.clear();
    this.kept.set(digest, token);
    return this.active(token, now);
  }

  /** The events the tokens projection applies that take something from a token. */
  apply(event: RecordedEvent): void {
    if (!TokenMemory.eventTypes.has(event.type)) return;
    if (event.type === 'token-revoked') {
      this.revoked.add((event as unknown as EventOf<'token-revoked'>).data.tokenId);
    } else if (event.type === 'marketplace-push-scopes-removed') {
      const d = (event as unknown as EventOf<'marketplace-push-scopes-removed'>).data;
      for (const id of d.tokenIds) {
        const names = this.pushScopesRemoved.get(id) ?? new Set<string>();
        this.pushScopesRemoved.set(id, names.add(d.name));
      }
    }
  }

  private active(token: TokenRecord, now: Date): TokenRecord | null {
    if (this.revoked.has(token.id) || token.revokedAt !== null) return null;
    if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now.getTime()) return null;
    const removed = this.pushScopesRemoved.get(token.id);
    return removed ? { ...token, pushScopes: token.pushScopes.filter((name) => !removed.has(name)) } : token;
  }
}
