import t, { type Test } from 'tap';
import {
  decodePktLines,
  encodePktLine,
  flushPkt,
  parseUploadPackRequest,
  PktLineError,
  textOf,
  type PktLine,
} from '../../../../src/adapters/git/pkt-line.ts';

// Request bodies byte for byte as the git 2.39.5 client sends them (captured from `git clone` against
// a node server; /work/shared/reference/stack-notes.md §5b). Some v2 lines carry no trailing LF.
const tip = 'c42260ce110254499b7a43c1bfce9e948ca0bf8b';
const older = '5995347e0a8b34c0a4ad2ae4bca3b04d7b6bd4c1';
const bytes = (text: string) => Buffer.from(text, 'latin1');

const v2LsRefs = bytes(
  '0014command=ls-refs\n0014agent=git/2.39.50016object-format=sha100010009peel\n000csymrefs\n000bunborn\n' +
    '0014ref-prefix HEAD\n001bref-prefix refs/heads/\n001aref-prefix refs/tags/\n0000',
);
const v2Fetch = bytes(
  `0011command=fetch0014agent=git/2.39.50016object-format=sha10001000dthin-pack000fno-progress000dofs-delta0032want ${tip}\n` +
    `0032want ${tip}\n0009done\n0000`,
);
const v0Fetch = bytes(
  `00a4want ${tip} multi_ack_detailed no-done side-band-64k thin-pack no-progress ofs-delta deepen-since deepen-not agent=git/2.39.5\n` +
    '00000009done\n',
);

const kinds = (lines: readonly PktLine[]) =>
  lines.map((line) => (line.kind === 'data' ? textOf(line) : `<${line.kind}>`));

/** Runs `fn` and returns the PktLineError it throws (fails the test when it throws nothing else). */
function pktError(t: Test, fn: () => unknown): PktLineError | null {
  try {
    fn();
  } catch (error) {
    t.type(error, PktLineError, 'a PktLineError');
    return error instanceof PktLineError ? error : null;
  }
  t.fail('expected a PktLineError, nothing was thrown');
  return null;
}

t.test('decodePktLines splits a real v2 ls-refs request: data lines, the delimiter, the final flush', async (t) => {
  t.strictSame(kinds(decodePktLines(v2LsRefs)), [
    'command=ls-refs',
    'agent=git/2.39.5',
    'object-format=sha1',
    '<delim>',
    'peel',
    'symrefs',
    'unborn',
    'ref-prefix HEAD',
    'ref-prefix refs/heads/',
    'ref-prefix refs/tags/',
    '<flush>',
  ]);
});

t.test('decodePktLines keeps payloads exact (the trailing LF stays in the payload; textOf drops one)', async (t) => {
  const [first, second] = decodePktLines(bytes('0006a\n0005b0004'));
  t.same(first, { kind: 'data', payload: bytes('a\n') });
  t.same(second, { kind: 'data', payload: bytes('b') });
  t.equal(textOf(first!), 'a');
  t.equal(textOf({ kind: 'data', payload: bytes('x\n\n') }), 'x\n', 'only one trailing LF is dropped');
  t.equal(textOf({ kind: 'flush' }), null, 'a flush has no text');
  t.strictSame(kinds(decodePktLines(bytes('0004'))), [''], '0004 is an empty data line, not a special packet');
});

t.test('decodePktLines: 0000 flush, 0001 delimiter, 0002 response end', async (t) => {
  t.strictSame(
    decodePktLines(bytes('000000010002')).map((l) => l.kind),
    ['flush', 'delim', 'response-end'],
  );
  t.strictSame(decodePktLines(Buffer.alloc(0)), [], 'an empty body has no lines');
});

t.test('decodePktLines reads upper-case hex length digits', async (t) => {
  t.strictSame(kinds(decodePktLines(bytes('000Ahello\n'))), ['hello']);
});

t.test('decodePktLines refuses what is not well framed, with the offset of the bad line', async (t) => {
  const cases: Array<[string, Buffer, RegExp, number]> = [
    ['non-hex length', bytes('zzzz'), /invalid length prefix 'zzzz'/, 0],
    ['non-hex after a good line', bytes('0006a\nzz12'), /invalid length prefix/, 6],
    ['truncated length prefix', bytes('00'), /truncated length prefix/, 0],
    ['truncated length prefix after a flush', bytes('0000000'), /truncated length prefix/, 4],
    ['a length past the end of the body', bytes('00ffwant'), /truncated payload/, 0],
    [
      'a length past the end after good lines',
      bytes(`0000000ahello\n0032want ${tip.slice(0, 20)}`),
      /truncated payload/,
      14,
    ],
    ['length 3 (reserved, not a packet)', bytes('0003'), /invalid length 3/, 0],
    ['a length beyond the 65520-byte maximum', bytes('fff1'), /exceeds 65520/, 0],
    ['control bytes in the prefix', Buffer.from([0x30, 0x30, 0x0a, 0x00]), /invalid length prefix '00\?\?'/, 0],
  ];
  for (const [name, body, message, offset] of cases) {
    const error = pktError(t, () => decodePktLines(body));
    t.match(error?.message, message, name);
    t.equal(error?.offset, offset, `${name}: offset`);
    t.equal(error?.code, 'malformed-pkt-line', `${name}: code`);
  }
});

t.test('decodePktLines accepts the maximum length 65520 (fff0) when the payload is there', async (t) => {
  const payload = Buffer.alloc(65516, 0x61);
  const [line] = decodePktLines(Buffer.concat([bytes('fff0'), payload]));
  t.equal(line?.kind === 'data' ? line.payload.length : -1, 65516);
});

t.test('encodePktLine and flushPkt frame as git does', async (t) => {
  t.equal(encodePktLine('done\n').toString('latin1'), '0009done\n');
  t.equal(encodePktLine(Buffer.from([1, 2, 3])).toString('hex'), '30303037010203');
  t.equal(encodePktLine('').toString('latin1'), '0004');
  t.equal(flushPkt.toString('latin1'), '0000');
  t.equal(encodePktLine('é').toString('latin1').slice(0, 4), '0006', 'the length counts bytes, not characters');
  t.equal(encodePktLine(Buffer.alloc(65516)).length, 65520, 'the largest payload');
  pktError(t, () => encodePktLine(Buffer.alloc(65517)));
  const line = `ERR upload-pack: not our ref ${tip}\n`;
  t.strictSame(
    kinds(decodePktLines(Buffer.concat([encodePktLine(line), flushPkt]))),
    [line.trimEnd(), '<flush>'],
    'round trip',
  );
});

t.test('parseUploadPackRequest: a real v2 ls-refs request is the ls-refs command and wants nothing', async (t) => {
  t.strictSame(parseUploadPackRequest(v2LsRefs, 2), {
    version: 2,
    command: 'ls-refs',
    wants: [],
    wantRefs: [],
    haves: [],
  });
});

t.test('parseUploadPackRequest: a real v2 fetch (command line without LF, the same want twice)', async (t) => {
  t.strictSame(
    parseUploadPackRequest(v2Fetch, 2),
    { version: 2, command: 'fetch', wants: [tip, tip], wantRefs: [], haves: [] },
    'git wants the tip once for HEAD and once for main: both are reported',
  );
});

t.test('parseUploadPackRequest: a real v0 request (capabilities after the first want, then done)', async (t) => {
  t.strictSame(parseUploadPackRequest(v0Fetch, 0), {
    version: 0,
    command: null,
    wants: [tip],
    wantRefs: [],
    haves: [],
  });
});

t.test('parseUploadPackRequest: v0 negotiation (wants, flush, haves, no done) and v2 haves and want-ref', async (t) => {
  const v0 = Buffer.concat([
    encodePktLine(`want ${tip} multi_ack_detailed side-band-64k ofs-delta agent=git/2.39.5\n`),
    encodePktLine(`want ${older}\n`),
    flushPkt,
    encodePktLine(`have ${older}\n`),
    encodePktLine(`have ${tip}\n`),
    flushPkt,
  ]);
  t.strictSame(parseUploadPackRequest(v0, 0), {
    version: 0,
    command: null,
    wants: [tip, older],
    wantRefs: [],
    haves: [older, tip],
  });
  const v2 = Buffer.concat([
    encodePktLine('command=fetch'),
    encodePktLine('agent=git/2.39.5'),
    bytes('0001'),
    encodePktLine('ofs-delta'),
    encodePktLine('want-ref refs/heads/main\n'),
    encodePktLine(`have ${older}\n`),
    encodePktLine('done\n'),
    flushPkt,
  ]);
  t.strictSame(parseUploadPackRequest(v2, 2), {
    version: 2,
    command: 'fetch',
    wants: [],
    wantRefs: ['refs/heads/main'],
    haves: [older],
  });
});

t.test('parseUploadPackRequest: command= is a v2 notion; in v0 it is neither a command nor a want', async (t) => {
  t.strictSame(parseUploadPackRequest(v2Fetch, 0), {
    version: 0,
    command: null,
    wants: [tip, tip],
    wantRefs: [],
    haves: [],
  });
});

t.test('parseUploadPackRequest refuses malformed want, want-ref and have lines, and bad framing', async (t) => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['a short want', encodePktLine(`want ${tip.slice(0, 12)}\n`), /malformed want line/],
    ['a want with no object', encodePktLine('want\n'), /malformed want line/],
    ['an upper-case object id', encodePktLine(`want ${tip.toUpperCase()}\n`), /malformed want line/],
    ['a want-ref with no ref', encodePktLine('want-ref\n'), /malformed want-ref line/],
    ['a non-hex have', encodePktLine(`have ${'z'.repeat(40)}\n`), /malformed have line/],
    ['garbage framing', bytes('zzzz'), /invalid length prefix/],
    ['a truncated body', v2Fetch.subarray(0, v2Fetch.length - 20), /truncated payload/],
  ];
  for (const [name, body, message] of cases) {
    for (const version of [0, 2] as const) {
      t.match(pktError(t, () => parseUploadPackRequest(body, version))?.message, message, `${name} (v${version})`);
    }
  }
});
