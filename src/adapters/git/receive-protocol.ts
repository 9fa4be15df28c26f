// The receive-pack side of the git wire protocol (v0/v1; git has no protocol v2 for push), as a pure
// codec: the command list at the head of a push request, and the report-status answer, with or
// without side-band-64k multiplexing.
import { decodePktLines, encodePktLine, flushPkt, PktLineError } from './pkt-line.ts';

export const zeroOid = '0'.repeat(40);
const oid = /^[0-9a-f]{40}$/;
const maxPktLength = 65520;

/** One ref update; a null sha is git's zero id (creation, or deletion). */
export type RefUpdate = Readonly<{ oldSha: string | null; newSha: string | null; ref: string }>;

export type CommandSection = Readonly<{
  updates: readonly RefUpdate[];
  /** The capabilities the client asked for (after the NUL of the first command). */
  capabilities: readonly string[];
  /** Bytes the section takes; the pack follows, unframed. */
  length: number;
}>;

const sha = (value: string, offset: number): string | null => {
  if (!oid.test(value)) throw new PktLineError(`malformed object id '${value.slice(0, 64)}'`, offset);
  return value === zeroOid ? null : value;
};

/**
 * Reads the command list at the head of a receive-pack request: optional `shallow <oid>` lines, then
 * `<old> <new> <ref>\0<capabilities>` and further `<old> <new> <ref>` lines, ended by a flush (a lone
 * flush is git's probe before a large push). Returns null while `head` does not hold the whole list;
 * throws PktLineError when it is not well formed. Signed pushes are refused (never advertised).
 */
export function readCommandSection(head: Buffer): CommandSection | null {
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  let offset = 0;
  for (;;) {
    if (offset + 4 > head.length) return null;
    const prefix = head.toString('latin1', offset, offset + 4);
    if (!/^[0-9a-f]{4}$/i.test(prefix))
      throw new PktLineError(`invalid length prefix '${prefix.replace(/[^\x20-\x7e]/g, '?')}'`, offset);
    const length = Number.parseInt(prefix, 16);
    if (length === 0) return { updates, capabilities, length: offset + 4 };
    if (length < 4) throw new PktLineError(`unexpected special packet ${prefix} in the command list`, offset);
    if (length > maxPktLength) throw new PktLineError(`length ${length} exceeds ${maxPktLength}`, offset);
    if (offset + length > head.length) return null;
    let line = head.toString('utf8', offset + 4, offset + length);
    if (line.endsWith('\n')) line = line.slice(0, -1);
    const nul = line.indexOf('\0');
    if (nul >= 0) {
      if (updates.length > 0) throw new PktLineError('capabilities after the first command', offset);
      capabilities = line
        .slice(nul + 1)
        .split(' ')
        .filter(Boolean);
      line = line.slice(0, nul);
    }
    if (line.startsWith('shallow ')) {
      // A client sends these only for a shallow clone it pushes from; receive-pack refuses shallow
      // updates by default (receive.shallowUpdate), so they are only checked here.
      if (updates.length > 0) throw new PktLineError('shallow line after a command', offset);
      sha(line.slice('shallow '.length), offset);
    } else if (line.startsWith('push-cert')) {
      throw new PktLineError('signed pushes are not accepted', offset);
    } else {
      const first = line.indexOf(' ');
      const second = line.indexOf(' ', first + 1);
      const ref = second < 0 ? '' : line.slice(second + 1);
      if (first !== 40 || second !== 81 || ref === '' || ref.includes(' '))
        throw new PktLineError(`malformed command '${line.slice(0, 120)}'`, offset);
      updates.push({ oldSha: sha(line.slice(0, 40), offset), newSha: sha(line.slice(41, 81), offset), ref });
    }
    offset += length;
  }
}

export type RefStatus = Readonly<{ ref: string; ok: boolean; reason: string | null }>;

/** A report-status answer: the unpack result (`ok` or git's error) and one status per ref. */
export type PushReport = Readonly<{ unpack: string; refs: readonly RefStatus[] }>;

export type ReceiveAnswer = Readonly<{
  /** Side-band 2 payloads (what git prints as `remote: …`), in order; kept as bytes. */
  messages: readonly Buffer[];
  /** Null when the output carried no report (the client did not ask for one, or git died). */
  report: PushReport | null;
  /** Side-band 3 (fatal) text, if any. */
  fatal: string | null;
}>;

function parseReport(bytes: Buffer): PushReport | null {
  let unpack: string | null = null;
  const refs: RefStatus[] = [];
  for (const line of decodePktLines(bytes)) {
    if (line.kind !== 'data') break;
    const text = line.payload.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) unpack = text.slice('unpack '.length);
    else if (text.startsWith('ok ')) refs.push({ ref: text.slice(3), ok: true, reason: null });
    else if (text.startsWith('ng ')) {
      const rest = text.slice(3);
      const space = rest.indexOf(' ');
      refs.push(
        space < 0
          ? { ref: rest, ok: false, reason: null }
          : { ref: rest.slice(0, space), ok: false, reason: rest.slice(space + 1) },
      );
    }
    // report-status-v2 `option …` lines follow an `ok` only for proc-receive, which is never configured.
  }
  return unpack === null ? null : { unpack, refs };
}

/** Reads what `git receive-pack --stateless-rpc` wrote, demultiplexing side-band-64k when it was asked for. */
export function parseReceiveAnswer(output: Buffer, sideband: boolean): ReceiveAnswer {
  if (output.length === 0) return { messages: [], report: null, fatal: null };
  if (!sideband) return { messages: [], report: parseReport(output), fatal: null };
  const messages: Buffer[] = [];
  const primary: Buffer[] = [];
  let fatal: string | null = null;
  for (const line of decodePktLines(output)) {
    if (line.kind !== 'data' || line.payload.length === 0) continue;
    const band = line.payload[0];
    const payload = line.payload.subarray(1);
    if (band === 1) primary.push(payload);
    else if (band === 2) messages.push(payload);
    else if (band === 3) fatal = payload.toString('utf8').trim();
  }
  return { messages, report: primary.length === 0 ? null : parseReport(Buffer.concat(primary)), fatal };
}

const reportBytes = (report: PushReport): Buffer =>
  Buffer.concat([
    encodePktLine(`unpack ${report.unpack}\n`),
    ...report.refs.map((r) => encodePktLine(r.ok ? `ok ${r.ref}\n` : `ng ${r.ref} ${r.reason ?? 'rejected'}\n`)),
    flushPkt,
  ]);

const band = (channel: 1 | 2, payload: Buffer): Buffer =>
  encodePktLine(Buffer.concat([Buffer.from([channel]), payload]));

/**
 * The answer to a push as the client reads it: with side-band, the messages on band 2 (the client
 * prints them as `remote: …`) and the report on band 1, then a flush; without, the report alone.
 */
export function encodeReceiveAnswer(
  answer: Readonly<{ messages: readonly Buffer[]; report: PushReport }>,
  sideband: boolean,
): Buffer {
  const report = reportBytes(answer.report);
  if (!sideband) return report;
  const parts = answer.messages.map((message) => band(2, message));
  for (let at = 0; at < report.length; at += maxPktLength - 5)
    parts.push(band(1, report.subarray(at, at + maxPktLength - 5)));
  parts.push(flushPkt);
  return Buffer.concat(parts);
}
