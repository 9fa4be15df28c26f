// The pkt-line framing of the git wire protocol, as a pure codec (no I/O): 4 hex digits of length
// (including themselves), then the payload; 0000 flush, 0001 delimiter (v2), 0002 response end (v2).

export type PktLine =
  Readonly<{ kind: 'data'; payload: Buffer }> | Readonly<{ kind: 'flush' | 'delim' | 'response-end' }>;

export class PktLineError extends Error {
  readonly code = 'malformed-pkt-line';
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at byte ${offset}`);
    this.offset = offset;
    this.name = 'PktLineError';
  }
}

const maxPktLength = 65520;

/**
 * Splits bytes into pkt-lines as they arrive, holding at most one incomplete line (≤ 65520 bytes), so a
 * request can be read without keeping its lines; throws PktLineError (offsets count from the first byte
 * pushed) as soon as the framing is wrong.
 */
export class PktLineDecoder {
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes consumed before `pending`. */
  private consumed = 0;

  push(chunk: Buffer, onLine: (line: PktLine, offset: number) => void): void {
    const buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const length = lengthAt(buffer, offset, this.consumed + offset);
      if (length < 4) {
        onLine({ kind: length === 0 ? 'flush' : length === 1 ? 'delim' : 'response-end' }, this.consumed + offset);
        offset += 4;
        continue;
      }
      if (offset + length > buffer.length) break;
      onLine({ kind: 'data', payload: buffer.subarray(offset + 4, offset + length) }, this.consumed + offset);
      offset += length;
    }
    this.consumed += offset;
    // A copy: the rest of a large chunk is not kept alive by its last few bytes.
    this.pending = Buffer.from(buffer.subarray(offset));
  }

  /** The input ended: anything left is a truncated line. */
  end(): void {
    if (this.pending.length === 0) return;
    throw new PktLineError(this.pending.length < 4 ? 'truncated length prefix' : 'truncated payload', this.consumed);
  }
}

/** The length prefix at `offset` (0, 1, 2 for the special packets, else 4 to 65520). */
function lengthAt(buffer: Buffer, offset: number, position: number): number {
  const prefix = buffer.toString('latin1', offset, offset + 4);
  if (!/^[0-9a-f]{4}$/i.test(prefix))
    throw new PktLineError(`invalid length prefix '${prefix.replace(/[^\x20-\x7e]/g, '?')}'`, position);
  const length = Number.parseInt(prefix, 16);
  if (length === 3) throw new PktLineError(`invalid length ${length}`, position);
  if (length > maxPktLength) throw new PktLineError(`length ${length} exceeds ${maxPktLength}`, position);
  return length;
}

/** Splits a buffer into pkt-lines; throws PktLineError on anything that is not well framed. */
export function decodePktLines(buffer: Buffer): PktLine[] {
  const lines: PktLine[] = [];
  const decoder = new PktLineDecoder();
  decoder.push(buffer, (line) => lines.push(line));
  decoder.end();
  return lines;
}

/** The payload of a data line as text, without its trailing newline. */
export const textOf = (line: PktLine): string | null =>
  line.kind === 'data' ? line.payload.toString('utf8').replace(/\n$/, '') : null;

export function encodePktLine(text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const length = payload.length + 4;
  if (length > maxPktLength) throw new PktLineError(`payload of ${payload.length} bytes is too long`, 0);
  return Buffer.concat([Buffer.from(length.toString(16).padStart(4, '0'), 'latin1'), payload]);
}

export const flushPkt = Buffer.from('0000', 'latin1');
