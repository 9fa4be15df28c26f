// Password attempts at the built-in sign-in (decision 354). Failures are counted per client address, which
// is held off with a growing pause once it fails too often, and per account, whose failures lengthen the
// answer to every further wrong password. A correct password from an address that has not failed is never
// refused by either: a guesser elsewhere cannot lock the administrator out. Only a flood far above any one
// address's limit (the whole process) refuses everybody, as a last resort.
import { normalizeIP } from '@fastify/rate-limit';

const minuteMs = 60_000;

/** The limits; `defaultAttemptLimits` unless a test passes its own. */
export type AttemptLimits = Readonly<{
  /** Failures of one address within a minute before it is held off. */
  perAddress: number;
  /** The first hold-off; each further one doubles, up to `maxHoldOffMs`. */
  holdOffMs: number;
  maxHoldOffMs: number;
  /** How long an address's hold-offs are remembered after its last failure. */
  forgetAfterMs: number;
  /** The pause before a wrong password is answered, doubled per `perAddress` failures of its account within 15 minutes. */
  failureDelayMs: number;
  maxFailureDelayMs: number;
  /** Failures of the whole process within a minute before every attempt is refused (the last resort). */
  global: number;
  /** Password checks at once (scrypt takes 32 MiB and ~100 ms each); more wait their turn, up to `maxWaiting`. */
  checksAtOnce: number;
  maxWaiting: number;
  /** Checks one address may have under way at once. */
  perAddressAtOnce: number;
  /** Addresses and accounts remembered at most (the oldest is forgotten first). */
  maxTracked: number;
}>;

export const defaultAttemptLimits: AttemptLimits = {
  perAddress: 10,
  holdOffMs: minuteMs,
  maxHoldOffMs: 15 * minuteMs,
  forgetAfterMs: 60 * minuteMs,
  failureDelayMs: 500,
  maxFailureDelayMs: 8_000,
  global: 1_000,
  checksAtOnce: 2,
  maxWaiting: 64,
  perAddressAtOnce: 2,
  maxTracked: 10_000,
};

export type AttemptRefusal = Readonly<{ message: string; retryAfterSeconds: number }>;

type AddressRecord = { failures: number[]; holdOffs: number; heldUntil: number; lastFailure: number; active: number };

const recent = (times: number[], since: number) => times.filter((at) => at > since);

/** Map insertion order is age: an entry touched again moves to the end; the first is the one to forget. */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): V {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
  return value;
}

export class SignInAttempts {
  private readonly addresses = new Map<string, AddressRecord>();
  private readonly accounts = new Map<string, number[]>();
  private failures: number[] = [];
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  private readonly now: () => number;
  private readonly limits: AttemptLimits;
  constructor(now: () => number, limits: AttemptLimits = defaultAttemptLimits) {
    this.now = now;
    this.limits = limits;
  }

  /** The key of a client address: IPv6 by its network prefix, as the request budgets count it. */
  static addressKey = (ip: string): string => normalizeIP(ip);

  private record(address: string): AddressRecord {
    const now = this.now();
    const found = this.addresses.get(address);
    const fresh = { failures: [], holdOffs: 0, heldUntil: 0, lastFailure: 0, active: 0 };
    const record = found && (found.active > 0 || now - found.lastFailure < this.limits.forgetAfterMs) ? found : fresh;
    return touch(this.addresses, address, record, this.limits.maxTracked);
  }

  /** Why an attempt from `address` is refused before its password is looked at, or null. */
  refusal(address: string): AttemptRefusal | null {
    const now = this.now();
    const seconds = (until: number) => Math.max(1, Math.ceil((until - now) / 1000));
    const record = this.addresses.get(address);
    if (record && record.heldUntil > now)
      return {
        message: 'Too many failed sign-ins from this address. Wait and try again.',
        retryAfterSeconds: seconds(record.heldUntil),
      };
    if (record && record.active >= this.limits.perAddressAtOnce)
      return { message: 'Too many sign-ins at once. Try again in a moment.', retryAfterSeconds: 1 };
    this.failures = recent(this.failures, now - minuteMs);
    if (this.failures.length >= this.limits.global)
      return {
        message: 'Too many failed sign-ins. Wait a minute and try again.',
        retryAfterSeconds: seconds((this.failures[0] ?? now) + minuteMs),
      };
    if (this.waiting.length >= this.limits.maxWaiting)
      return { message: 'Too many sign-ins at once. Try again in a moment.', retryAfterSeconds: 1 };
    return null;
  }

  /** Runs the password check in turn; a failure is counted and answered after a pause that grows with the account's failures. */
  async check(address: string, account: string, run: () => Promise<boolean>): Promise<boolean> {
    const record = this.record(address);
    record.active += 1;
    try {
      const ok = await this.inTurn(run);
      if (!ok) await this.fail(record, account);
      return ok;
    } finally {
      record.active -= 1;
    }
  }

  private async inTurn(run: () => Promise<boolean>): Promise<boolean> {
    if (this.running >= this.limits.checksAtOnce) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await run();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private async fail(record: AddressRecord, account: string): Promise<void> {
    const now = this.now();
    const limits = this.limits;
    this.failures.push(now);
    record.lastFailure = now;
    record.failures = [...recent(record.failures, now - minuteMs), now];
    if (record.failures.length >= limits.perAddress) {
      record.heldUntil = now + Math.min(limits.holdOffMs * 2 ** record.holdOffs, limits.maxHoldOffMs);
      record.holdOffs += 1;
      record.failures = [];
    }
    const key = account.toLowerCase().slice(0, 100);
    const failures = [...recent(this.accounts.get(key) ?? [], now - 15 * minuteMs), now];
    touch(this.accounts, key, failures, limits.maxTracked);
    const doublings = Math.floor(failures.length / limits.perAddress);
    const delay = Math.min(limits.failureDelayMs * 2 ** Math.min(doublings, 16), limits.maxFailureDelayMs);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
