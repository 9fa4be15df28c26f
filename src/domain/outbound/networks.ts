// The outbound boundary's arithmetic (decision 340): IP addresses, CIDR networks and whether an address
// lies inside one. Pure: the adapters resolve names and connect, this only answers "inside or not".
//
// Every address is held as 16 bytes. An IPv4 address is held as its IPv4-mapped IPv6 form
// (::ffff:a.b.c.d), and an IPv4 network as the mapped network (prefix + 96), so ::ffff:169.254.169.254
// and 169.254.169.254 are the same address to every rule, whichever way either is written. The two
// families stay apart otherwise: an IPv4 address is inside IPv4 networks only (::ffff:0:0/96 and
// longer are IPv4 networks), so ::/0 means every IPv6 address, as an operator reads it.

/** An address as 16 bytes; `text` is how it is shown (IPv4 dotted when it is one, mapped or not). */
export type Address = Readonly<{ bytes: readonly number[]; text: string }>;

/** A network as the operator wrote it (`text`) and as 16 bytes plus a prefix length. */
export type Network = Readonly<{ text: string; bytes: readonly number[]; prefix: number }>;

/** The setting the networks come from, named in every refusal. */
export const denyNetworksKey = 'gateway.outbound.deny-networks';

/**
 * The default deny list: link-local (IPv4 169.254/16, which holds most clouds' metadata address
 * 169.254.169.254, and IPv6 fe80::/10), the metadata addresses outside it (AWS over IPv6, Alibaba
 * Cloud) and "this network" 0.0.0.0/8, which Linux connects to the local host. Private ranges and
 * loopback are allowed: forges inside the organisation live there.
 */
export const defaultDenyNetworks: readonly string[] = [
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254/128',
  '100.100.100.200/32',
  '0.0.0.0/8',
];

const mappedPrefix = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    // Decimal only, no leading zero: 010.0.0.1 is octal to some parsers and decimal to others.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes.push(value);
  }
  return bytes;
}

function parseIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const pieces = part.split(':');
    const words: number[] = [];
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (v4 === null) return null;
        words.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) words.push(Number.parseInt(piece, 16));
      else return null;
    }
    return words;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const words = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const isMapped = (bytes: readonly number[]) => mappedPrefix.every((b, i) => bytes[i] === b);

function showAddress(bytes: readonly number[]): string {
  if (isMapped(bytes)) return bytes.slice(12).join('.');
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // RFC 5952: the longest run of two or more zero words becomes `::` (the first such run on a tie).
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/**
 * An IP address as a resolver answers it or a URL host holds it: dotted IPv4, or IPv6 (brackets and a
 * zone such as `%eth0` allowed). Null for anything else, host names included.
 */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '');
  const v4 = parseIpv4(bare);
  const bytes = v4 !== null ? [...mappedPrefix, ...v4] : bare.includes(':') ? parseIpv6(bare) : null;
  return bytes === null ? null : { bytes, text: showAddress(bytes) };
}

/**
 * A network written as `address/prefix` (an address alone is one host). Refused: a prefix out of range,
 * and host bits set (`10.1.0.0/8`), which usually means a typo.
 */
export function parseNetwork(text: string): Network | { problem: string } {
  const [addressText = '', prefixText, ...rest] = text.trim().split('/');
  const address = parseAddress(addressText);
  const v4 = parseIpv4(addressText) !== null;
  if (address === null || rest.length > 0)
    return { problem: `'${text}' is not a network (write e.g. 169.254.0.0/16 or fe80::/10)` };
  const max = v4 ? 32 : 128;
  if (prefixText !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText))
    return { problem: `'${text}' has no prefix length after '/' (0 to ${max})` };
  const written = prefixText === undefined ? max : Number(prefixText);
  if (written > max) return { problem: `'${text}' has a prefix longer than ${max}` };
  const prefix = v4 ? written + 96 : written;
  const base = masked(address.bytes, prefix);
  if (base.some((b, i) => b !== address.bytes[i])) {
    const shown = `${showAddress(base)}/${written}`;
    return { problem: `'${text}' has bits set after its prefix (did you mean ${shown}?)` };
  }
  return { text: text.trim(), bytes: base, prefix };
}

function masked(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, i) => {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    return byte & ((0xff << (8 - bits)) & 0xff);
  });
}

/** Whether `address` lies inside `network`. */
export const contains = (network: Network, address: Address): boolean =>
  isIpv4Network(network) === isMapped(address.bytes) &&
  masked(address.bytes, network.prefix).every((b, i) => b === network.bytes[i]);

const isIpv4Network = (network: Network) => network.prefix >= 96 && isMapped(network.bytes);

/** The first network of `networks` that holds `address`, or null. */
export const networkHolding = (networks: readonly Network[], address: Address): Network | null =>
  networks.find((network) => contains(network, address)) ?? null;

/** Parses the whole setting; the problems name the entry (`gateway.outbound.deny-networks[2]`). */
export function parseNetworks(texts: readonly string[]): { networks: Network[]; problems: string[] } {
  const networks: Network[] = [];
  const problems: string[] = [];
  texts.forEach((text, i) => {
    const parsed = parseNetwork(text);
    if ('problem' in parsed) problems.push(`${denyNetworksKey}[${i}]: ${parsed.problem}`);
    else networks.push(parsed);
  });
  return { networks, problems };
}

/**
 * Why the gateway does not connect to `address` (reached as `host`): the address and the network that
 * holds it, named as the setting. `host` equal to the address (an IP-literal URL) is said once.
 */
export function deniedDetail(host: string, address: Address, network: Network): string {
  const where = `inside ${denyNetworksKey} (${network.text})`;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const literal = parseAddress(bare);
  if (literal !== null && literal.text === address.text) return `${address.text} is ${where}`;
  return `${bare} resolves to ${address.text}, ${where}`;
}
