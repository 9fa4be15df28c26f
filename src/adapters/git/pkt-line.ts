// The pkt-line framing of the git wire protocol, as a pure codec (no I/O): 4 hex digits of length
// (including themselves), then the payload; 0000 flush, 0001 delimiter (v2), 0002 response end (v2).

export type PktLine =
  Readonly<{ kind: 'data'; payload: Buffer }> | Readonly<{ kind: 'flush' | 'delim' | 'response-end' }>;

export class PktLineError extends Error {
  readonly code = 'malformed-pkt-line';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
    this.name = 'PktLineError';
  }
}

const maxPktLength = 65520;

/** Splits a buffer into pkt-lines; throws PktLineError on anything that is not well framed. */
export function decodePktLines(buffer: Buffer): PktLine[] {
  const lines: PktLine[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (offset + 4 > buffer.length) throw new PktLineError('truncated length prefix', offset);
    const prefix = buffer.toString('latin1', offset, offset + 4);
    if (!/^[0-9a-f]{4}$/i.test(prefix))
      throw new PktLineError(`invalid length prefix '${prefix.replace(/[^\x20-\x7e]/g, '?')}'`, offset);
    const length = Number.parseInt(prefix, 16);
    if (length === 0) lines.push({ kind: 'flush' });
    else if (length === 1) lines.push({ kind: 'delim' });
    else if (length === 2) lines.push({ kind: 'response-end' });
    else if (length < 4) throw new PktLineError(`invalid length ${length}`, offset);
    else {
      if (length > maxPktLength) throw new PktLineError(`length ${length} exceeds ${maxPktLength}`, offset);
      if (offset + length > buffer.length) throw new PktLineError('truncated payload', offset);
      lines.push({ kind: 'data', payload: buffer.subarray(offset + 4, offset + length) });
      offset += length;
      continue;
    }
    offset += 4;
  }
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

export type UploadPackRequest = Readonly<{
  version: 0 | 2;
  /** v2 only: ls-refs, fetch, or another command. */
  command: string | null;
  wants: readonly string[];
  /** v2 fetch: want-ref lines (refs asked for by name). */
  wantRefs: readonly string[];
  haves: readonly string[];
}>;

const oid = /^[0-9a-f]{40}$/;

/**
 * Reads what an upload-pack POST asks for. v0/v1: `want <oid> [caps]`… flush, `have <oid>`…, `done`.
 * v2: `command=<c>`, capabilities, delimiter, arguments (`want <oid>`, `want-ref <ref>`, `have <oid>`).
 */
export function parseUploadPackRequest(body: Buffer, version: 0 | 2): UploadPackRequest {
  const lines = decodePktLines(body);
  const wants: string[] = [];
  const wantRefs: string[] = [];
  const haves: string[] = [];
  let command: string | null = null;
  for (const line of lines) {
    const text = textOf(line);
    if (text === null) continue;
    if (version === 2 && text.startsWith('command=')) {
      command = text.slice('command='.length);
      continue;
    }
    const [verb, value] = text.split(' ', 3);
    if (verb === 'want') {
      if (!value || !oid.test(value)) throw new PktLineError(`malformed want line '${text.slice(0, 60)}'`, 0);
      wants.push(value);
    } else if (verb === 'want-ref') {
      if (!value) throw new PktLineError('malformed want-ref line', 0);
      wantRefs.push(value);
    } else if (verb === 'have') {
      if (!value || !oid.test(value)) throw new PktLineError(`malformed have line '${text.slice(0, 60)}'`, 0);
      haves.push(value);
    }
  }
  return { version, command, wants, wantRefs, haves };
}
