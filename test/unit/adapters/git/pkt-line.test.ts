import t, { type Test } from 'tap';
import {
  decodePktLines,
  encodePktLine,
  flushPkt,
  PktLineDecoder,
  PktLineError,
  textOf,
  type PktLine,
} from '../../../../src/adapters/git/pkt-line.ts';

// Request bodies byte for byte as the git 2.39.5 client sends them (captured from `git clone` against
// a node server). Some v2 lines carry no trailing LF.
const tip = 'c42260ce110254499b7a43c1bfce9e948ca0bf8b';
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

t.test('PktLineDecoder: the same lines whatever the chunking, offsets counted from the first byte', async (t) => {
  const whole = Buffer.concat([v2LsRefs, v2Fetch, v0Fetch]);
  const expected = kinds(decodePktLines(whole));
  for (const size of [1, 2, 3, 5, 7, 64, 1000]) {
    const decoder = new PktLineDecoder();
    const seen: PktLine[] = [];
    const offsets: number[] = [];
    for (let at = 0; at < whole.length; at += size)
      decoder.push(whole.subarray(at, at + size), (line, offset) => {
        seen.push(line);
        offsets.push(offset);
      });
    decoder.end();
    t.strictSame(kinds(seen), expected, `chunks of ${size} bytes`);
    t.equal(offsets[1], 0x14, `chunks of ${size} bytes: the second line starts after the first`);
  }
  const decoder = new PktLineDecoder();
  decoder.push(bytes('0006a\n00'), () => {});
  t.match(pktError(t, () => decoder.push(bytes('zz'), () => {}))?.offset, 6, 'a bad prefix split over chunks');
  const truncated = new PktLineDecoder();
  truncated.push(bytes('0009don'), () => {});
  t.match(pktError(t, () => truncated.end())?.message, /truncated payload at byte 0/, 'end() reports what is left');
});
