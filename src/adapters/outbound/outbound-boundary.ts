import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import {
  deniedDetail,
  networkHolding,
  parseAddress,
  parseNetworks,
  type Address,
  type Network,
} from '../../domain/outbound/networks.ts';
import { GitSocksGate } from './git-socks-gate.ts';
import type { Resolution } from './resolution.ts';

export type { Resolution } from './resolution.ts';

/** How names are resolved: every address of `host`, as node's dns.lookup answers with `all`. */
export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** A connection refused at the boundary: its message is the refusal, naming the address and the network. */
export class OutboundDenied extends Error {
  readonly code = 'EOUTBOUNDDENIED';
  readonly detail: string;
  constructor(detail: string) {
    super(detail);
    this.detail = detail;
    this.name = 'OutboundDenied';
  }
}

/**
 * The outbound boundary (decision 340): every connection the gateway opens for upstreams, external plugin
 * sources, webhook deliveries, audit sink batches and the mirror goes to an address outside
 * gateway.outbound.deny-networks. A name is resolved once, every address it has is checked (one denied
 * address refuses the name), and the connection goes to a checked address: a name that changes between
 * the check and the connection (DNS rebinding) cannot slip through. Node clients take `lookup`; git goes
 * through `gitGate`, a SOCKS5 proxy in this process that applies the same check (decision 341).
 */
export class OutboundBoundary {
  readonly networks: readonly Network[];
  private gate: GitSocksGate | null = null;

  private readonly resolver: Resolver;
  private constructor(networks: readonly Network[], resolver: Resolver) {
    this.resolver = resolver;
    this.networks = networks;
  }

  /** From the setting's values (checked when the configuration loaded: a bad one throws here too). */
  static of(texts: readonly string[], resolver: Resolver = systemResolver): OutboundBoundary {
    const { networks, problems } = parseNetworks(texts);
    if (problems.length > 0) throw new Error(problems.join('; '));
    return new OutboundBoundary(networks, resolver);
  }

  /** Why `address`, reached as `host`, is refused; null when it is allowed. */
  deniedAddress(host: string, address: Address): string | null {
    const network = networkHolding(this.networks, address);
    return network === null ? null : deniedDetail(host, address, network);
  }

  /** Resolves `host` (an IP literal stands for itself) and checks every address it has. */
  async resolve(host: string): Promise<Resolution> {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    const literal = parseAddress(bare);
    let addresses: Address[];
    if (literal !== null) addresses = [literal];
    else {
      try {
        addresses = (await this.resolver(bare)).flatMap((a) => parseAddress(a.address) ?? []);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'failed';
        return { outcome: 'unresolved', detail: `could not resolve host '${bare}' (${code})` };
      }
      if (addresses.length === 0) return { outcome: 'unresolved', detail: `host '${bare}' has no address` };
    }
    for (const address of addresses) {
      const denied = this.deniedAddress(bare, address);
      if (denied !== null) return { outcome: 'denied', detail: denied };
    }
    return { outcome: 'allowed', addresses };
  }

  /**
   * Why the host of `url` may not be reached, resolved now; null when it may, or when it cannot be
   * resolved or parsed (the request then fails on its own, with its own reason).
   */
  async refusalFor(url: string): Promise<string | null> {
    if (this.networks.length === 0) return null;
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return null;
    }
    const resolution = await this.resolve(host);
    return resolution.outcome === 'denied' ? resolution.detail : null;
  }

  /** Why the host of `url` is refused when it is an IP literal (no resolution: cheap enough for any check). */
  literalRefusal(url: string): string | null {
    let host: string;
    try {
      host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    } catch {
      return null;
    }
    const address = parseAddress(host);
    return address === null ? null : this.deniedAddress(host, address);
  }

  /**
   * dns.lookup for node:net, node:http and node:https: resolves through the boundary and answers only
   * checked addresses, or an OutboundDenied error. Node skips `lookup` for an IP-literal host, so a
   * client checks those itself (literalRefusal) before it connects.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    void this.resolve(hostname).then((resolution) => {
      if (resolution.outcome === 'denied') return callback(new OutboundDenied(resolution.detail), '', 4);
      if (resolution.outcome === 'unresolved')
        return callback(Object.assign(new Error(resolution.detail), { code: 'ENOTFOUND' }), '', 4);
      const family = (a: Address) => (a.text.includes(':') ? 6 : 4);
      const wanted = resolution.addresses.filter((a) => !options.family || family(a) === options.family);
      if (wanted.length === 0)
        return callback(
          Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }),
          '',
          4,
        );
      if (options.all)
        return callback(
          null,
          wanted.map((a) => ({ address: a.text, family: family(a) })),
        );
      return callback(null, wanted[0]!.text, family(wanted[0]!));
    });
  };

  /** The SOCKS5 gate git connects through, started on first use (127.0.0.1, a free port). */
  async gitGate(): Promise<GitSocksGate> {
    this.gate ??= new GitSocksGate((host) => this.resolve(host));
    await this.gate.listening();
    return this.gate;
  }

  async close(): Promise<void> {
    await this.gate?.close();
    this.gate = null;
  }
}
