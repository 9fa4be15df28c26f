// The grammar of an upload-pack request as `git upload-pack --stateless-rpc` (2.39) accepts it, checked
// line by line as the bytes arrive. Anything git would die on is refused here first, so a malformed
// request is the client's error (400) and never a failed git process (500).
import { PktLineDecoder, PktLineError, textOf, type PktLine } from './pkt-line.ts';

export type UploadPackRequest = Readonly<{
  version: 0 | 2;
  /** v2 only: ls-refs, fetch, or another command (not checked further: the facade serves no other). */
  command: string | null;
  wants: readonly string[];
  /** v2 fetch: want-ref lines (refs asked for by name). */
  wantRefs: readonly string[];
  haves: readonly string[];
}>;

const oid = /^[0-9a-f]{40}$/;
const positive = /^[1-9][0-9]{0,8}$/;
const timestamp = /^[1-9][0-9]{0,15}$/;
const refName = /^[^\x00-\x20\x7f]+$/;
const prefix = /^[^\x00-\x20\x7f]*$/;
/** v0: the first want carries the capabilities after a space; git ignores those it does not know. */
const wantWithFeatures = /^[0-9a-f]{40}( [^\x00\n]*)?$/;

/** Each line a section allows: a flag (null) or a verb and the form of its value. */
type Grammar = ReadonlyMap<string, RegExp | null>;

const v2Capabilities: Grammar = new Map([
  ['agent', /^[^\x00-\x20\x7f]+$/],
  ['server-option', /^[^\x00\n]*$/],
  ['object-format', /^sha1$/],
]);
const v2Arguments: Readonly<Record<string, Grammar>> = {
  fetch: new Map([
    ['want', oid],
    ['have', oid],
    ['want-ref', refName],
    ['shallow', oid],
    ['deepen', positive],
    ['deepen-since', timestamp],
    ['deepen-not', refName],
    ['deepen-relative', null],
    ['thin-pack', null],
    ['ofs-delta', null],
    ['no-progress', null],
    ['include-tag', null],
    ['done', null],
    ['wait-for-done', null],
  ]),
  'ls-refs': new Map([
    ['symrefs', null],
    ['peel', null],
    ['unborn', null],
    ['ref-prefix', prefix],
  ]),
};
const v0Wants: Grammar = new Map([
  ['want', wantWithFeatures],
  ['shallow', oid],
  ['deepen', positive],
  ['deepen-since', timestamp],
  ['deepen-not', refName],
]);
const v0Haves: Grammar = new Map([
  ['have', oid],
  ['done', null],
]);

/**
 * Where the parser is: v2 `command=`, capabilities, (delimiter) arguments, flush; v0 wants (and shallow
 * and deepen lines), flush, haves, then `done` or a flush. Nothing may follow the end.
 */
type Phase = 'command' | 'capabilities' | 'arguments' | 'wants' | 'haves' | 'ended';

const shown = (text: string) => text.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');

/** The verb and value of a line a grammar allows, or a PktLineError. */
function checked(grammar: Grammar, text: string, offset: number, what: string): [string, string] {
  const space = text.indexOf(' ');
  const verb = space < 0 ? text : text.slice(0, space);
  const value = space < 0 ? null : text.slice(space + 1);
  const form = grammar.get(verb);
  if (form === undefined) throw new PktLineError(`unexpected ${what} '${shown(text)}'`, offset);
  if (form === null ? value !== null : value === null || !form.test(value))
    throw new PktLineError(`malformed ${verb} line '${shown(text)}'`, offset);
  return [verb, value ?? ''];
}

/**
 * Reads an upload-pack request pushed in chunks, keeping only what the facade needs (command, wants,
 * want-refs, haves) and refusing a request of more than `maxLines` pkt-lines (flush and delimiter
 * packets included) as soon as the line past the limit arrives.
 */
export class UploadPackRequestParser {
  private readonly decoder = new PktLineDecoder();
  private phase: Phase;
  private lines = 0;
  private command: string | null = null;
  private readonly wants: string[] = [];
  private readonly wantRefs: string[] = [];
  private readonly haves: string[] = [];

  readonly version: 0 | 2;
  private readonly maxLines: number;
  constructor(version: 0 | 2, maxLines: number) {
    this.version = version;
    this.maxLines = maxLines;
    this.phase = version === 2 ? 'command' : 'wants';
  }

  push(chunk: Buffer): void {
    this.decoder.push(chunk, (line, offset) => this.line(line, offset));
  }

  /** The request, once its last byte was pushed; a PktLineError when it ends early. */
  end(): UploadPackRequest {
    this.decoder.end();
    const complete = this.version === 2 ? this.phase === 'ended' : this.phase === 'haves' || this.phase === 'ended';
    if (!complete) throw new PktLineError(this.lines === 0 ? 'an empty request' : 'the request ends early', 0);
    const { version, command, wants, wantRefs, haves } = this;
    return { version, command, wants, wantRefs, haves };
  }

  private line(line: PktLine, offset: number): void {
    this.lines += 1;
    if (this.lines > this.maxLines) throw new PktLineError(`more than ${this.maxLines} pkt-lines`, offset);
    if (line.kind === 'response-end') throw new PktLineError('a response-end packet in a request', offset);
    if (this.phase === 'ended') throw new PktLineError('data after the end of the request', offset);
    if (this.version === 2) this.v2(line, textOf(line), offset);
    else this.v0(line, textOf(line), offset);
  }

  private v2(line: PktLine, text: string | null, offset: number): void {
    if (this.phase === 'command') {
      if (text === null || !text.startsWith('command=')) throw new PktLineError('expected command=<name>', offset);
      this.command = text.slice('command='.length);
      this.phase = 'capabilities';
      return;
    }
    if (line.kind === 'flush') {
      this.phase = 'ended';
      return;
    }
    if (line.kind === 'delim') {
      if (this.phase !== 'capabilities') throw new PktLineError('a second delimiter', offset);
      this.phase = 'arguments';
      return;
    }
    if (text === null) return;
    if (text.startsWith('command=')) throw new PktLineError('a second command= line', offset);
    if (this.phase === 'capabilities') {
      const equals = text.indexOf('=');
      checked(
        v2Capabilities,
        equals < 0 ? text : `${text.slice(0, equals)} ${text.slice(equals + 1)}`,
        offset,
        'capability',
      );
      return;
    }
    const grammar = v2Arguments[this.command ?? ''];
    // The facade refuses any other command before git sees it: its arguments need no reading.
    if (grammar) this.argument(checked(grammar, text, offset, `${this.command} argument`));
  }

  private v0(line: PktLine, text: string | null, offset: number): void {
    if (line.kind === 'delim') throw new PktLineError('a delimiter in a protocol v0 request', offset);
    if (line.kind === 'flush') {
      this.phase = this.phase === 'wants' ? 'haves' : 'ended';
      return;
    }
    const [verb, value] = checked(this.phase === 'wants' ? v0Wants : v0Haves, text ?? '', offset, 'line');
    if (verb === 'done') this.phase = 'ended';
    else this.argument([verb, verb === 'want' ? value.slice(0, 40) : value]);
  }

  private argument([verb, value]: [string, string]): void {
    if (verb === 'want') this.wants.push(value);
    else if (verb === 'want-ref') this.wantRefs.push(value);
    else if (verb === 'have') this.haves.push(value);
  }
}

/** Reads a whole upload-pack request body; throws PktLineError when it is not one. */
export function parseUploadPackRequest(body: Buffer, version: 0 | 2, maxLines = Infinity): UploadPackRequest {
  const parser = new UploadPackRequestParser(version, maxLines);
  parser.push(body);
  return parser.end();
}
