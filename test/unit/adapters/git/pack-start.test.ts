import t from 'tap';
import { PackStartDetector } from '../../../../src/adapters/git/pack-start.ts';

// upload-pack output as git 2.39.5 writes it (captured from `git upload-pack --stateless-rpc`): the
// pack starts at the v2 `packfile` section, at the first side-band packet on band 1 (v0), or at a raw
// `PACK` after the ACK/NAK lines when side-band was not negotiated (spec, Events: "appended when the
// send begins"; decision 53: negotiation rounds record nothing).
const tip = 'c42260ce110254499b7a43c1bfce9e948ca0bf8b';
const bytes = (text: string) => Buffer.from(text, 'latin1');
const packHeader = '\x01PACK\x00\x00\x00\x02\x00\x00\x00\x03\x07x}';

const v2Packfile = bytes(`000dpackfile\n00a1${packHeader}`);
const v2WithAcks = bytes(
  `0014acknowledgments\n0031ACK ${tip}\n000aready\n0001000dpackfile\n0023\x02Enumerating objects: 4, done.\n`,
);
const v2AcksOnly = bytes(`0014acknowledgments\n0031ACK ${tip}\n0000`);
const v2NakOnly = bytes('0014acknowledgments\n0008NAK\n0000');
const v2LsRefs = bytes(`0050${tip} HEAD symref-target:refs/heads/main\n003d${tip} refs/heads/main\n0000`);
const v0SideBand = bytes(`0008NAK\n00b5${packHeader}`);
const v0Progress = bytes(
  '0008NAK\n005d\x02Enumerating objects: 6, done.\nCounting objects:  16% (1/6)\rCounting objects:  33% (2/6)\r',
);
const v0Negotiation = bytes(`0038ACK ${tip} common\n0037ACK ${tip} ready\n0008NAK\n`);
const v0Raw = bytes('0008NAK\nPACK\x00\x00\x00\x02\x00\x00\x00\x06');

/** Feeds the chunks in order; returns what feed() answered after each. */
function feedAll(version: 0 | 2, chunks: readonly Buffer[]): boolean[] {
  const detector = new PackStartDetector(version);
  return chunks.map((chunk) => detector.feed(chunk));
}

/** Every way of cutting `buffer` in two. */
const splits = (buffer: Buffer) =>
  Array.from({ length: buffer.length - 1 }, (_, i) => [buffer.subarray(0, i + 1), buffer.subarray(i + 1)] as const);

t.test('v2: the packfile section line starts the pack', async (t) => {
  t.strictSame(feedAll(2, [v2Packfile]), [true]);
  t.strictSame(feedAll(2, [v2WithAcks]), [true], 'after an acknowledgments section and the delimiter');
});

t.test(
  'v2: acknowledgments without a packfile section (a negotiation round) and an ls-refs answer are not a pack',
  async (t) => {
    t.strictSame(feedAll(2, [v2AcksOnly]), [false]);
    t.strictSame(feedAll(2, [v2NakOnly]), [false]);
    t.strictSame(feedAll(2, [v2LsRefs]), [false]);
  },
);

t.test('v2: the packfile line split across chunks at every byte is found once it is complete', async (t) => {
  const head = bytes('0008NAK\n'); // an earlier line, so the cut can fall before, in, or after the prefix
  const stream = Buffer.concat([bytes('0014acknowledgments\n'), head, bytes('0001'), v2Packfile]);
  const complete = stream.indexOf('packfile\n') + 'packfile\n'.length;
  for (const [first, second] of splits(stream)) {
    t.strictSame(feedAll(2, [first, second]), [first.length >= complete, true], `cut at ${first.length}`);
  }
});

t.test('v2: a band-1 packet or raw PACK without the packfile section does not count', async (t) => {
  t.strictSame(feedAll(2, [bytes(`00a1${packHeader}`)]), [false]);
  t.strictSame(feedAll(2, [bytes('PACK\x00\x00\x00\x02')]), [false]);
});

t.test('v0: the first side-band packet on band 1 starts the pack', async (t) => {
  t.strictSame(feedAll(0, [v0SideBand]), [true]);
});

t.test('v0: a band-1 packet split across chunks (recognised from its first payload byte)', async (t) => {
  t.strictSame(
    feedAll(0, [bytes('0008NAK\n00b5'), bytes(packHeader)]),
    [false, true],
    'split right after the length prefix',
  );
  t.strictSame(
    feedAll(0, [bytes('0008NAK\n00'), bytes(`b5${packHeader}`)]),
    [false, true],
    'split inside the length prefix',
  );
  t.strictSame(
    feedAll(0, [bytes('0008NAK\n00b5\x01PA'), bytes('CK')]),
    [true, true],
    'split inside the payload: band 1 is known already',
  );
  t.strictSame(
    feedAll(0, [bytes('000'), bytes('8NA'), bytes('K\n'), bytes('00b5'), bytes('\x01')]),
    [false, false, false, false, true],
    'byte by byte',
  );
});

t.test(
  'v0: a side-band stream or a raw PACK cut at every byte starts exactly when the band-1 byte or PACK arrives',
  async (t) => {
    const sideBand = Buffer.concat([v0Progress.subarray(0, 8 + 0x5d), bytes(`00b5${packHeader}`)]);
    const band1 = sideBand.indexOf('\x01PACK') + 1;
    for (const [first, second] of splits(sideBand)) {
      t.strictSame(feedAll(0, [first, second]), [first.length >= band1, true], `side-band cut at ${first.length}`);
    }
    const rawPack = v0Raw.indexOf('PACK') + 4;
    for (const [first, second] of splits(v0Raw)) {
      t.strictSame(feedAll(0, [first, second]), [first.length >= rawPack, true], `raw cut at ${first.length}`);
    }
  },
);

t.test('v0: progress on band 2 is not the pack; the band-1 packet after it is', async (t) => {
  const detector = new PackStartDetector(0);
  t.equal(detector.feed(v0Progress), false, 'progress only');
  t.equal(detector.started, false);
  t.equal(detector.feed(bytes(`00b5${packHeader}`)), true, 'then the pack');
  t.equal(detector.started, true);
  t.strictSame(
    feedAll(0, [bytes('0008NAK\n0015\x02Counting obj'), bytes('ects\n')]),
    [false, false],
    'a band-2 packet split across chunks',
  );
  t.strictSame(
    feedAll(0, [bytes('0008NAK\n0015\x03fatal: no'), bytes(' object\n')]),
    [false, false],
    'an error on band 3',
  );
});

t.test('v0: raw PACK without side-band after the NAK', async (t) => {
  t.strictSame(feedAll(0, [v0Raw]), [true]);
  t.strictSame(
    feedAll(0, [bytes('0008NAK\nPA'), bytes('CK\x00\x00\x00\x02')]),
    [false, true],
    'PACK split across chunks',
  );
  t.strictSame(feedAll(0, [bytes('PACK\x00\x00\x00\x02')]), [true], 'PACK first (no ACK/NAK line)');
});

t.test('v0: a negotiation round answered with ACK/NAK only is not a pack', async (t) => {
  t.strictSame(feedAll(0, [v0Negotiation]), [false]);
  t.strictSame(feedAll(0, [bytes('0008NAK\n')]), [false]);
  t.strictSame(feedAll(0, [bytes('0028ERR upload-pack: not our ref 0000000\n')]), [false], 'an ERR packet');
});

t.test('once started it stays started, whatever follows', async (t) => {
  const detector = new PackStartDetector(0);
  t.equal(detector.feed(v0SideBand), true);
  t.equal(detector.feed(bytes('zzzz')), true);
  t.equal(detector.feed(Buffer.alloc(0)), true);
  t.equal(detector.started, true);
  const v2 = new PackStartDetector(2);
  t.equal(v2.feed(v2Packfile), true);
  t.equal(v2.feed(v2NakOnly), true);
});

t.test('an empty chunk changes nothing', async (t) => {
  t.strictSame(feedAll(0, [Buffer.alloc(0), bytes('0008NAK\n'), Buffer.alloc(0), bytes(`00b5${packHeader}`)]), [
    false,
    false,
    false,
    true,
  ]);
});
