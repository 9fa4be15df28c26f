import t, { type Test } from 'tap';
import { encodePktLine, flushPkt, PktLineError } from '../../../../src/adapters/git/pkt-line.ts';
import { parseUploadPackRequest, UploadPackRequestParser } from '../../../../src/adapters/git/upload-pack-request.ts';

// Request bodies byte for byte as the git 2.39.5 client sends them (captured from `git clone` against
// a node server). Some v2 lines carry no trailing LF.
const tip = 'c42260ce110254499b7a43c1bfce9e948ca0bf8b';
const older = '5995347e0a8b34c0a4ad2ae4bca3b04d7b6bd4c1';
const bytes = (text: string) => Buffer.from(text, 'latin1');
const pkts = (...lines: Array<string | Buffer>) =>
  Buffer.concat(lines.map((line) => (typeof line === 'string' ? encodePktLine(line) : line)));
const delim = bytes('0001');

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

t.test('a real v2 ls-refs request is the ls-refs command and wants nothing', async (t) => {
  t.strictSame(parseUploadPackRequest(v2LsRefs, 2), {
    version: 2,
    command: 'ls-refs',
    wants: [],
    wantRefs: [],
    haves: [],
  });
});

t.test('a real v2 fetch (command line without LF, the same want twice)', async (t) => {
  t.strictSame(
    parseUploadPackRequest(v2Fetch, 2),
    { version: 2, command: 'fetch', wants: [tip, tip], wantRefs: [], haves: [] },
    'git wants the tip once for HEAD and once for main: both are reported',
  );
});

t.test('a real v0 request (capabilities after the first want, then done)', async (t) => {
  t.strictSame(parseUploadPackRequest(v0Fetch, 0), {
    version: 0,
    command: null,
    wants: [tip],
    wantRefs: [],
    haves: [],
  });
});

t.test('v0 negotiation (wants, flush, haves, no done) and v2 haves and want-ref', async (t) => {
  const v0 = pkts(
    `want ${tip} multi_ack_detailed side-band-64k ofs-delta agent=git/2.39.5\n`,
    `want ${older}\n`,
    flushPkt,
    `have ${older}\n`,
    `have ${tip}\n`,
    flushPkt,
  );
  t.strictSame(parseUploadPackRequest(v0, 0), {
    version: 0,
    command: null,
    wants: [tip, older],
    wantRefs: [],
    haves: [older, tip],
  });
  const v2 = pkts(
    'command=fetch',
    'agent=git/2.39.5',
    delim,
    'ofs-delta',
    'want-ref refs/heads/main\n',
    `have ${older}\n`,
    'done\n',
    flushPkt,
  );
  t.strictSame(parseUploadPackRequest(v2, 2), {
    version: 2,
    command: 'fetch',
    wants: [],
    wantRefs: ['refs/heads/main'],
    haves: [older],
  });
  const shallow = pkts(`want ${tip} side-band-64k\n`, 'deepen 1\n', flushPkt);
  t.strictSame(parseUploadPackRequest(shallow, 0).wants, [tip], 'a v0 shallow request may end after its wants');
});

t.test('the same request whatever the chunking', async (t) => {
  for (const [body, version] of [
    [v2LsRefs, 2],
    [v2Fetch, 2],
    [v0Fetch, 0],
  ] as const) {
    for (const size of [1, 3, 17]) {
      const parser = new UploadPackRequestParser(version, 1000);
      for (let at = 0; at < body.length; at += size) parser.push(body.subarray(at, at + size));
      t.strictSame(parser.end(), parseUploadPackRequest(body, version), `v${version}, chunks of ${size}`);
    }
  }
});

t.test('a request git would die on is a PktLineError (a 400), never a request passed on', async (t) => {
  const fetchHead = ['command=fetch', 'agent=git/2.39.5', delim] as const;
  const cases: Array<[string, 0 | 2, Buffer, RegExp]> = [
    [
      'v2: a second command (fetch, then ls-refs)',
      2,
      pkts('command=fetch', 'command=ls-refs', flushPkt),
      /second command=/,
    ],
    [
      'v2: a second command among the arguments',
      2,
      pkts(...fetchHead, `want ${tip}\n`, 'command=ls-refs\n', flushPkt),
      /second command=/,
    ],
    ['v2: no command first', 2, pkts(`want ${tip}\n`, flushPkt), /expected command=/],
    ['v2: a flush first', 2, pkts(flushPkt, flushPkt), /expected command=/],
    ['v2: an unknown capability', 2, pkts('command=fetch', 'object-info', flushPkt), /unexpected capability/],
    ['v2: session-id (not advertised)', 2, pkts('command=ls-refs', 'session-id=x', flushPkt), /unexpected capab/],
    ['v2: sha256', 2, pkts('command=ls-refs', 'object-format=sha256', flushPkt), /malformed object-format/],
    ['v2: an unknown fetch argument', 2, pkts(...fetchHead, 'filter blob:none', flushPkt), /unexpected fetch arg/],
    ['v2: an unknown ls-refs argument', 2, pkts('command=ls-refs', delim, 'bogus', flushPkt), /unexpected ls-refs/],
    ['v2: a flag with a value', 2, pkts(...fetchHead, 'done now', flushPkt), /malformed done line/],
    ['v2: deepen 0', 2, pkts(...fetchHead, 'deepen 0', flushPkt), /malformed deepen line/],
    ['v2: a second delimiter', 2, pkts(...fetchHead, delim, flushPkt), /second delimiter/],
    ['v2: data after the final flush', 2, Buffer.concat([v2Fetch, flushPkt]), /after the end/],
    ['v2: no final flush', 2, v2Fetch.subarray(0, -4), /ends early/],
    ['v2: a response-end packet', 2, pkts('command=fetch', bytes('0002')), /response-end/],
    ['v0: a v2 body', 0, v2Fetch, /unexpected line 'command=fetch'/],
    ['v0: a have among the wants', 0, pkts(`have ${tip}\n`, flushPkt), /unexpected line/],
    ['v0: a filter line', 0, pkts(`want ${tip}\n`, 'filter blob:none\n', flushPkt), /unexpected line/],
    ['v0: data after done', 0, Buffer.concat([v0Fetch, flushPkt]), /after the end/],
    ['v0: no flush after the wants', 0, pkts(`want ${tip}\n`), /ends early/],
    ['v0: a delimiter', 0, pkts(`want ${tip}\n`, delim), /delimiter/],
    ['v0: an empty data line', 0, pkts(`want ${tip}\n`, flushPkt, bytes('0004')), /unexpected line ''/],
    ['an empty body (v0)', 0, Buffer.alloc(0), /an empty request/],
    ['an empty body (v2)', 2, Buffer.alloc(0), /an empty request/],
    ['v0: a short want', 0, pkts(`want ${tip.slice(0, 12)}\n`, flushPkt), /malformed want line/],
    ['v0: a want with no object', 0, pkts('want\n', flushPkt), /malformed want line/],
    ['v2: an upper-case object id', 2, pkts(...fetchHead, `want ${tip.toUpperCase()}\n`), /malformed want line/],
    ['v2: a want-ref with no ref', 2, pkts(...fetchHead, 'want-ref\n', flushPkt), /malformed want-ref line/],
    ['v2: a non-hex have', 2, pkts(...fetchHead, `have ${'z'.repeat(40)}\n`, flushPkt), /malformed have line/],
    ['garbage framing', 2, bytes('zzzz'), /invalid length prefix/],
    ['a truncated body', 2, v2Fetch.subarray(0, v2Fetch.length - 20), /truncated payload/],
  ];
  for (const [name, version, body, message] of cases)
    t.match(pktError(t, () => parseUploadPackRequest(body, version))?.message, message, name);
});

t.test('more pkt-lines than the limit (flush packets count) are refused as the line past it arrives', async (t) => {
  const haves = Array.from({ length: 10 }, () => `have ${older}\n`);
  const body = pkts(`want ${tip}\n`, flushPkt, ...haves, 'done\n');
  t.equal(parseUploadPackRequest(body, 0, 13).haves.length, 10, '13 lines fit a limit of 13');
  t.match(pktError(t, () => parseUploadPackRequest(body, 0, 12))?.message, /more than 12 pkt-lines/);
  const parser = new UploadPackRequestParser(2, 100);
  parser.push(pkts('command=fetch', delim));
  const flushes = Buffer.from('0000'.repeat(1000), 'latin1');
  t.match(
    pktError(t, () => parser.push(flushes))?.message,
    /data after the end of the request at byte 25/,
    'a flood of flush packets stops at the second one',
  );
});
