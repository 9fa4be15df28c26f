import { randomBytes, timingSafeEqual } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { parseAddress } from '../../domain/outbound/networks.ts';
import type { Resolve } from './resolution.ts';

/** What the gate saw go wrong for one git command: a refusal at the boundary, or a connection that failed. */
export type GateNote = Readonly<{ kind: 'denied' | 'failed'; detail: string }>;

/** One git command's use of the gate: its proxy URL (a one-off credential) and what happened to its connections. */
export type GateSession = Readonly<{ proxyUrl: string; notes(): readonly GateNote[]; end(): void }>;

const handshakeTimeoutMs = 10_000;
const connectTimeoutMs = 30_000;

// RFC 1928 reply codes.
const reply = { ok: 0, notAllowed: 2, hostUnreachable: 4, refused: 5, badCommand: 7, badAddressType: 8 } as const;

/**
 * The SOCKS5 proxy git connects through (decision 341): git is told `http.proxy=socks5h://…` and so hands
 * every host name, the hosts of redirects included, to this gate unresolved. The gate resolves the name
 * through the boundary, refuses it when any address is denied, and otherwise connects to an address it
 * checked itself: what git reaches is exactly what was checked, whatever DNS answers a moment later.
 *
 * It listens on 127.0.0.1 only and serves only the git commands the gateway runs: each gets a one-off
 * user name and password (RFC 1929), handed to git through its environment and forgotten when it exits.
 * A session records what went wrong, so a refused git command reports the rule instead of curl's
 * "Can't complete SOCKS5 connection".
 */
export class GitSocksGate {
  private readonly server: Server;
  private readonly sessions = new Map<string, { secret: Buffer; notes: GateNote[] }>();
  private readonly started: Promise<void>;

  private readonly resolve: Resolve;
  constructor(resolve: Resolve) {
    this.resolve = resolve;
    this.server = createServer((socket) => void this.serve(socket));
    this.server.unref();
    this.started = new Promise((ready, failed) => {
      this.server.once('error', failed);
      this.server.listen(0, '127.0.0.1', () => ready());
    });
  }

  listening(): Promise<void> {
    return this.started;
  }

  private get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  session(): GateSession {
    const user = randomBytes(9).toString('hex');
    const secret = randomBytes(18).toString('hex');
    const notes: GateNote[] = [];
    this.sessions.set(user, { secret: Buffer.from(secret), notes });
    return {
      proxyUrl: `socks5h://${user}:${secret}@127.0.0.1:${this.port}`,
      notes: () => notes,
      end: () => this.sessions.delete(user),
    };
  }

  async close(): Promise<void> {
    this.sessions.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(client: Socket): Promise<void> {
    client.on('error', () => client.destroy());
    client.setTimeout(handshakeTimeoutMs, () => client.destroy());
    const input = byteReader(client);
    const answer = (code: number) => void client.end(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
    try {
      const [version, count] = await input.read(2);
      const methods = await input.read(count!);
      if (version !== 5 || !methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
      client.write(Buffer.from([5, 2]));
      const [, userLength] = await input.read(2);
      const user = (await input.read(userLength!)).toString('latin1');
      const [passwordLength] = await input.read(1);
      const password = await input.read(passwordLength!);
      const session = this.sessions.get(user);
      if (!session || session.secret.length !== password.length || !timingSafeEqual(session.secret, password))
        return void client.end(Buffer.from([1, 1]));
      client.write(Buffer.from([1, 0]));
      const [, command, , type] = await input.read(4);
      const host = await hostOf(type!, input);
      const port = (await input.read(2)).readUInt16BE(0);
      if (host === null) return answer(reply.badAddressType);
      if (command !== 1) return answer(reply.badCommand);
      const resolution = await this.resolve(host);
      if (resolution.outcome !== 'allowed') {
        session.notes.push({ kind: resolution.outcome === 'denied' ? 'denied' : 'failed', detail: resolution.detail });
        return answer(resolution.outcome === 'denied' ? reply.notAllowed : reply.hostUnreachable);
      }
      const upstream = await connectToAny(
        resolution.addresses.map((a) => a.text),
        port,
      );
      if (!('socket' in upstream)) {
        session.notes.push({ kind: 'failed', detail: `could not connect to ${host} port ${port}: ${upstream.error}` });
        return answer(reply.refused);
      }
      client.setTimeout(0);
      client.pause();
      const early = input.release();
      client.write(Buffer.from([5, reply.ok, 0, 1, 0, 0, 0, 0, 0, 0]));
      if (early.length > 0) upstream.socket.write(early);
      upstream.socket.on('error', () => client.destroy());
      client.on('close', () => upstream.socket.destroy());
      client.pipe(upstream.socket).pipe(client);
    } catch {
      client.destroy();
    }
  }
}

/** The host of a CONNECT request: a domain name as given, an IP address as text; null for an unknown type. */
async function hostOf(type: number, input: ByteReader): Promise<string | null> {
  if (type === 1) return [...(await input.read(4))].join('.');
  if (type === 3) return (await input.read((await input.read(1))[0]!)).toString('latin1');
  if (type !== 4) return null;
  const bytes = await input.read(16);
  const words = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(2 * i).toString(16));
  return parseAddress(words.join(':'))?.text ?? null;
}

/** Connects to the first address of `addresses` that answers (each was checked at the boundary). */
async function connectToAny(
  addresses: readonly string[],
  port: number,
): Promise<{ socket: Socket } | { error: string }> {
  let error = 'no address';
  for (const address of addresses) {
    const outcome = await new Promise<{ socket: Socket } | { error: string }>((resolve) => {
      const socket = connect({ host: address, port });
      socket.setTimeout(connectTimeoutMs, () =>
        socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      );
      socket.once('connect', () => {
        socket.setTimeout(0);
        socket.removeAllListeners('error');
        resolve({ socket });
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    if ('socket' in outcome) return outcome;
    error = outcome.error;
  }
  return { error };
}

type ByteReader = Readonly<{ read(n: number): Promise<Buffer>; release(): Buffer }>;

/** Reads exact byte counts from a socket during the handshake; `release` hands back what came early. */
function byteReader(socket: Socket): ByteReader {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve(b: Buffer): void; reject(e: Error): void } | null = null;
  let closed = false;
  const pump = () => {
    if (waiting === null) return;
    if (buffered.length < waiting.n) return void (closed && waiting.reject(new Error('the client went away')));
    const chunk = buffered.subarray(0, waiting.n);
    buffered = buffered.subarray(waiting.n);
    const done = waiting;
    waiting = null;
    done.resolve(chunk);
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    pump();
  };
  const onClose = () => {
    closed = true;
    pump();
  };
  socket.on('data', onData);
  socket.on('close', onClose);
  return {
    read: (n) =>
      new Promise((resolve, reject) => {
        waiting = { n, resolve, reject };
        pump();
      }),
    release: () => {
      socket.off('data', onData);
      socket.off('close', onClose);
      const rest = buffered;
      buffered = Buffer.alloc(0);
      return rest;
    },
  };
}
