import { runCommand } from '../kernel/run-command.ts';
import type { EventStore } from '../../adapters/eventstore/port.ts';
import type { Clock } from '../../adapters/system/clock.ts';
import { correlationId } from '../../adapters/system/ids.ts';
import type { ActorType } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import { lastUsedIntervalMs, tokenDecider } from '../../domain/token/token.decider.ts';
import type { Log } from '../kernel/ports.ts';

/**
 * lastUsedAt (docs/access.md): written after a successful authentication, at most once per token per
 * minute. Off the request path: the answer never waits for it. The decider makes the once-a-minute
 * rule hold across replicas; the map only spares this process the stream reads.
 */
export class TokenUseRecorder {
  private readonly recent = new Map<number, number>();
  private readonly recording = new Set<Promise<unknown>>();

  private readonly store: EventStore;
  private readonly clock: Clock;
  private readonly logger: Log;
  constructor(store: EventStore, clock: Clock, logger: Log) {
    this.store = store;
    this.clock = clock;
    this.logger = logger;
  }

  record(tokenId: number, principal: string, actorType: ActorType): void {
    const now = this.clock.now().getTime();
    const last = this.recent.get(tokenId);
    if (last !== undefined && now - last < lastUsedIntervalMs) return;
    this.recent.set(tokenId, now);
    if (this.recent.size > 10_000) {
      for (const [id, at] of this.recent) if (now - at >= lastUsedIntervalMs) this.recent.delete(id);
    }
    const meta = {
      principal,
      actorType,
      at: new Date(now).toISOString(),
      correlationId: correlationId(),
      credentialId: tokenId,
    };
    const recorded = runCommand(this.store, tokenDecider, streams.token(tokenId), {
      type: 'record-token-use',
      data: { tokenId },
      meta,
    }).catch((error: unknown) => {
      this.recent.delete(tokenId);
      this.logger.warn({ err: error, tokenId }, 'could not record the token use; lastUsedAt lags');
    });
    this.recording.add(recorded);
    void recorded.finally(() => this.recording.delete(recorded));
  }

  /** Resolves once every use recorded so far has been appended or has failed (the server waits for it as it closes). */
  async idle(): Promise<void> {
    while (this.recording.size > 0) await Promise.allSettled([...this.recording]);
  }
}
