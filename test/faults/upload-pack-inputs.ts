// Generated upload-pack requests for the fuzzer: valid-ish requests as git sends them (v0, v2 fetch, v2
// ls-refs), then mutated at the packet level (duplicated commands, unknown capabilities and arguments,
// missing or extra flushes, foreign wants) and at the byte level (bad, huge and non-hex lengths,
// truncation, garbage), sometimes gzip-encoded or claiming gzip for garbage. Seeded: a failure names the
// seed and the index that reproduce it.
import { gzipSync } from 'node:zlib';

/** A small fast seeded generator (mulberry32). */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => next() < p;
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[int(16)]).join('');
  const bytes = (length: number) => Buffer.from(Array.from({ length }, () => int(256)));
  return { next, int, pick, chance, hex, bytes };
}
export type Random = ReturnType<typeof random>;

/** The objects a fuzzed request may name. */
export type Objects = Readonly<{
  /** Advertised tips (main and pinned snapshots). */
  advertised: readonly string[];
  /** In the repository, reachable from an advertised tip, but not advertised. */
  reachable: readonly string[];
  /** In the repository and reachable from nothing the facade advertises: never to be served. */
  planted: readonly string[];
}>;

type Packet = string | 'FLUSH' | 'DELIM' | 'END';

export type FuzzInput = Readonly<{ body: Buffer; headers: Record<string, string>; what: string }>;

const pkt = (text: string) =>
  Buffer.concat([Buffer.from((Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')), Buffer.from(text)]);
const control: Record<string, Buffer> = {
  FLUSH: Buffer.from('0000'),
  DELIM: Buffer.from('0001'),
  END: Buffer.from('0002'),
};
const encode = (packets: readonly Packet[]) => Buffer.concat(packets.map((p) => control[p] ?? pkt(p)));

function someSha(r: Random, objects: Objects): string {
  const roll = r.next();
  if (roll < 0.45) return r.pick(objects.advertised);
  if (roll < 0.6) return r.pick(objects.reachable);
  if (roll < 0.8) return r.pick(objects.planted);
  return r.hex(40);
}

function v2Fetch(r: Random, objects: Objects): Packet[] {
  const flags = ['thin-pack', 'no-progress', 'ofs-delta', 'include-tag', 'deepen-relative'].filter(() => r.chance(0.5));
  const wants = Array.from({ length: 1 + r.int(3) }, () => `want ${someSha(r, objects)}\n`);
  const haves = Array.from(
    { length: r.int(4) },
    () => `have ${r.chance(0.5) ? r.pick(objects.advertised) : r.hex(40)}\n`,
  );
  return [
    'command=fetch',
    'agent=git/2.39.5',
    'object-format=sha1',
    'DELIM',
    ...flags,
    ...wants,
    ...haves,
    ...(r.chance(0.8) ? ['done\n'] : []),
    'FLUSH',
  ];
}

function v2LsRefs(r: Random): Packet[] {
  const args = ['peel\n', 'symrefs\n', 'unborn\n', 'ref-prefix HEAD\n', 'ref-prefix refs/heads/\n', 'ref-prefix refs/'];
  return [
    'command=ls-refs\n',
    'agent=git/2.39.5',
    'object-format=sha1',
    'DELIM',
    ...args.filter(() => r.chance(0.6)),
    'FLUSH',
  ];
}

function v0Request(r: Random, objects: Objects): Packet[] {
  const caps = [
    'multi_ack_detailed',
    'no-done',
    'side-band-64k',
    'side-band',
    'thin-pack',
    'ofs-delta',
    'no-progress',
    'include-tag',
    'shallow',
    'agent=git/2.39.5',
  ];
  const chosen = caps.filter(() => r.chance(0.5)).join(' ');
  const wants = Array.from(
    { length: 1 + r.int(3) },
    (_, i) => `want ${someSha(r, objects)}${i === 0 && chosen ? ` ${chosen}` : ''}\n`,
  );
  const haves = Array.from(
    { length: r.int(4) },
    () => `have ${r.chance(0.5) ? r.pick(objects.advertised) : r.hex(40)}\n`,
  );
  const end: Packet[] = r.chance(0.7) ? ['done\n'] : r.chance(0.5) ? ['FLUSH'] : [];
  return [...wants, ...(r.chance(0.1) ? ['deepen 1\n'] : []), 'FLUSH', ...haves, ...end];
}

/** Lines a mutation may insert: what git knows, what it does not, and what the facade refuses. */
function strayPacket(r: Random, objects: Objects): Packet {
  return r.pick<() => Packet>([
    () => 'command=ls-refs\n',
    () => 'command=fetch\n',
    () => 'command=object-info\n',
    () => 'command=bundle-uri\n',
    () => `command=${r.hex(6)}`,
    () => 'session-id=fuzz',
    () => 'object-format=sha256',
    () => `${r.hex(5)}=${r.hex(5)}`,
    () => 'server-option=x',
    () => 'filter blob:none\n',
    () => 'packfile-uris https\n',
    () => 'sideband-all\n',
    () => r.pick(['deepen 0\n', 'deepen 1\n', 'deepen -1\n', 'deepen-since 0\n', 'deepen-since 1700000000\n']),
    () => r.pick(['deepen-not refs/heads/main\n', 'deepen-not nowhere\n', 'deepen-relative\n']),
    () => `shallow ${someSha(r, objects)}\n`,
    () => r.pick(['want-ref refs/heads/main\n', 'want-ref refs/nothing\n']),
    () => `want ${someSha(r, objects)}\n`,
    () => `want ${someSha(r, objects).toUpperCase()}\n`,
    () => `have ${someSha(r, objects)}\n`,
    () => r.pick(['done\n', 'done', 'wait-for-done\n', 'peel\n', 'unborn\n', 'ref-prefix \n', 'symrefs extra\n']),
    () => '',
    () => r.bytes(1 + r.int(30)).toString('latin1'),
    () => r.pick<Packet>(['FLUSH', 'DELIM', 'END']),
  ])();
}

function mutatePackets(r: Random, packets: Packet[], objects: Objects): Packet[] {
  const out = [...packets];
  for (let n = r.int(3); n > 0; n -= 1) {
    const at = r.int(out.length + 1);
    const roll = r.next();
    if (roll < 0.35) out.splice(at, 0, strayPacket(r, objects));
    else if (roll < 0.55 && out.length > 0) out.splice(Math.min(at, out.length - 1), 1);
    else if (roll < 0.75 && out.length > 0) out.splice(at, 0, out[r.int(out.length)] as Packet);
    else if (out.length > 1) {
      const other = r.int(out.length);
      const here = Math.min(at, out.length - 1);
      [out[here], out[other]] = [out[other] as Packet, out[here] as Packet];
    }
  }
  return out;
}

function mutateBytes(r: Random, body: Buffer): Buffer {
  const at = r.int(body.length + 1);
  const lengths = ['ffff', 'fff1', 'fff0', 'zzzz', '00g0', '0003', '-001', ' 00a', '0004', 'FFFF', '000A'];
  return r.pick<() => Buffer>([
    () => Buffer.concat([body.subarray(0, at), Buffer.from(r.pick(lengths)), body.subarray(at)]),
    () => {
      const copy = Buffer.from(body);
      if (copy.length > 0) copy[Math.min(at, copy.length - 1)] = r.int(256);
      return copy;
    },
    () => body.subarray(0, at),
    () => Buffer.concat([body, r.bytes(1 + r.int(64))]),
    () => Buffer.concat([body.subarray(0, at), r.bytes(1 + r.int(16)), body.subarray(at)]),
    () => Buffer.concat([body, Buffer.from('0000'.repeat(1 + r.int(2000)))]),
  ])();
}

/** The `index`th input of the run seeded `seed` (reproducible one by one). */
export function fuzzInput(seed: number, index: number, objects: Objects): FuzzInput {
  const r = random(seed ^ Math.imul(index + 1, 0x9e3779b1));
  const kind = r.pick(['v2-fetch', 'v2-fetch', 'v2-ls-refs', 'v0', 'v0'] as const);
  const packets =
    kind === 'v2-fetch' ? v2Fetch(r, objects) : kind === 'v2-ls-refs' ? v2LsRefs(r) : v0Request(r, objects);
  const mutated = r.chance(0.7) ? mutatePackets(r, packets, objects) : packets;
  let body: Buffer = encode(mutated);
  const bytesMutated = r.chance(0.3);
  if (bytesMutated) body = mutateBytes(r, body);
  let version = kind === 'v0' ? 0 : 2;
  if (r.chance(0.05)) version = 2 - version;
  const headers: Record<string, string> = version === 2 ? { 'git-protocol': 'version=2' } : {};
  const encoding = r.next();
  let how = 'plain';
  if (encoding < 0.15) {
    body = gzipSync(body);
    how = 'gzip';
  } else if (encoding < 0.2) {
    body = r.pick<() => Buffer>([
      () => r.bytes(r.int(200)),
      () => gzipSync(body).subarray(0, r.int(body.length)),
      () => Buffer.concat([gzipSync(body), r.bytes(1 + r.int(8))]),
    ])();
    how = 'gzip garbage';
  }
  if (how !== 'plain') headers['content-encoding'] = 'gzip';
  const what = `${kind}${mutated === packets ? '' : ' packets mutated'}${bytesMutated ? ' bytes mutated' : ''}, v${version} header, ${how}`;
  return { body, headers, what };
}
