// oidc-provider's storage for the built-in issuer: in memory, each entry dropped when it expires.
// Sessions, interactions and codes are short-lived; a restart signs the browser out of the issuer
// only (the gateway's own sessions are in PostgreSQL). Written here rather than oidc-provider's
// development adapter, which warns on the console and is meant for development.
import type { Adapter, AdapterPayload } from 'oidc-provider';

type Entry = { payload: AdapterPayload; expiresAt: number };

const sweepEvery = 1000;

/** The adapter factory of one issuer: oidc-provider calls it per model name (Session, Interaction, …). */
export function memoryAdapter(): (model: string) => Adapter {
  const stores = new Map<string, Map<string, Entry>>();
  let writes = 0;
  const onWrite = (now: number) => {
    if ((writes += 1) % sweepEvery !== 0) return;
    for (const store of stores.values()) for (const [id, entry] of store) if (entry.expiresAt <= now) store.delete(id);
  };
  return (model) => {
    const store = stores.get(model) ?? new Map<string, Entry>();
    stores.set(model, store);
    return new MemoryAdapter(store, onWrite);
  };
}

class MemoryAdapter implements Adapter {
  private readonly store: Map<string, Entry>;
  private readonly onWrite: (now: number) => void;
  constructor(store: Map<string, Entry>, onWrite: (now: number) => void) {
    this.store = store;
    this.onWrite = onWrite;
  }

  private live(id: string): Entry | undefined {
    const entry = this.store.get(id);
    if (entry && entry.expiresAt <= Date.now()) {
      this.store.delete(id);
      return undefined;
    }
    return entry;
  }

  upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const now = Date.now();
    this.onWrite(now);
    this.store.set(id, { payload, expiresAt: expiresIn ? now + expiresIn * 1000 : Number.MAX_SAFE_INTEGER });
    return Promise.resolve();
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return Promise.resolve(this.live(id)?.payload);
  }

  private findBy(match: (payload: AdapterPayload) => boolean): Promise<AdapterPayload | undefined> {
    for (const [id] of this.store) {
      const entry = this.live(id);
      if (entry && match(entry.payload)) return Promise.resolve(entry.payload);
    }
    return Promise.resolve(undefined);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy((payload) => payload.uid === uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy((payload) => payload.userCode === userCode);
  }

  consume(id: string): Promise<void> {
    const entry = this.live(id);
    if (entry) entry.payload = { ...entry.payload, consumed: Math.floor(Date.now() / 1000) };
    return Promise.resolve();
  }

  destroy(id: string): Promise<void> {
    this.store.delete(id);
    return Promise.resolve();
  }

  revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, entry] of this.store) if (entry.payload.grantId === grantId) this.store.delete(id);
    return Promise.resolve();
  }
}
