import t, { type Test } from 'tap';
import { PktLineError } from '../../../../src/adapters/git/pkt-line.ts';
import {
  encodeReceiveAnswer,
  parseReceiveAnswer,
  readCommandSection,
} from '../../../../src/adapters/git/receive-protocol.ts';

const zero = '0'.repeat(40);
const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const bytes = (text: string) => Buffer.from(text, 'latin1');
/** One pkt-line, written independently of the code under test. */
const pkt = (text: string | Buffer) => {
  const payload = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  return Buffer.concat([bytes((payload.length + 4).toString(16).padStart(4, '0')), payload]);
};
const band = (n: number, text: string) => pkt(Buffer.concat([Buffer.from([n]), bytes(text)]));
const caps = 'report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5';

function pktError(t: Test, fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    t.type(error, PktLineError);
    return error instanceof Error ? error.message : '';
  }
  t.fail('expected a PktLineError');
  return '';
}

t.test('the command list as git 2.39 sends it, followed by the pack', async (t) => {
  const head = Buffer.concat([
    pkt(`${a} ${b} refs/heads/main\0 ${caps}`),
    pkt(`${zero} ${b} refs/tags/v1\n`),
    bytes('0000PACK\0\0\0\x02'),
  ]);
  t.strictSame(readCommandSection(head), {
    updates: [
      { oldSha: a, newSha: b, ref: 'refs/heads/main' },
      { oldSha: null, newSha: b, ref: 'refs/tags/v1' },
    ],
    capabilities: caps.split(' '),
    length: head.length - 8,
  });
  const deletion = Buffer.concat([pkt(`${a} ${zero} refs/heads/main\0report-status\n`), bytes('0000')]);
  t.match(
    readCommandSection(deletion),
    { updates: [{ oldSha: a, newSha: null }], capabilities: ['report-status'] },
    'a deletion',
  );
  t.match(
    readCommandSection(
      Buffer.concat([pkt(`shallow ${a}\n`), pkt(`${a} ${b} refs/heads/main\0report-status\n`), bytes('0000')]),
    ),
    { updates: [{ ref: 'refs/heads/main' }] },
    'shallow lines come first',
  );
  t.strictSame(
    readCommandSection(bytes('0000')),
    { updates: [], capabilities: [], length: 4 },
    "git's probe: a lone flush",
  );
});

t.test('an incomplete command list reads as null (read more)', async (t) => {
  const whole = Buffer.concat([pkt(`${a} ${b} refs/heads/main\0report-status\n`), bytes('0000')]);
  for (const cut of [0, 3, 4, 20, whole.length - 4, whole.length - 1])
    t.equal(readCommandSection(whole.subarray(0, cut)), null, `cut at ${cut}`);
  t.ok(readCommandSection(whole));
});

t.test('malformed command lists throw', async (t) => {
  t.match(
    pktError(t, () => readCommandSection(bytes('zzzz'))),
    /invalid length prefix/,
  );
  t.match(
    pktError(t, () => readCommandSection(bytes('0001'))),
    /unexpected special packet/,
  );
  t.match(
    pktError(t, () => readCommandSection(pkt('abc refs/heads/main\0report-status\n'))),
    /malformed command/,
  );
  t.match(
    pktError(t, () => readCommandSection(pkt(`${a} ${'g'.repeat(40)} refs/heads/main\n`))),
    /malformed object id/,
  );
  t.match(
    pktError(t, () => readCommandSection(pkt(`${a} ${b} \n`))),
    /malformed command/,
  );
  t.match(
    pktError(t, () => readCommandSection(pkt(`${a} ${b} refs/heads/a b\n`))),
    /malformed command/,
  );
  t.match(
    pktError(t, () =>
      readCommandSection(Buffer.concat([pkt(`${a} ${b} refs/heads/main\n`), pkt(`${a} ${b} refs/heads/x\0caps\n`)])),
    ),
    /capabilities after/,
  );
  t.match(
    pktError(t, () => readCommandSection(pkt('push-cert\0report-status\n'))),
    /signed pushes/,
  );
  t.match(
    pktError(t, () => readCommandSection(Buffer.concat([pkt(`${a} ${b} refs/heads/main\n`), pkt(`shallow ${a}\n`)]))),
    /shallow line after/,
  );
});

t.test('the answer of receive-pack, with and without side-band', async (t) => {
  const report = `${pkt('unpack ok\n').toString('latin1')}${pkt('ok refs/heads/main\n').toString('latin1')}${pkt('ng refs/heads/x non-fast-forward\n').toString('latin1')}0000`;
  t.strictSame(parseReceiveAnswer(bytes(report), false), {
    messages: [],
    fatal: null,
    report: {
      unpack: 'ok',
      refs: [
        { ref: 'refs/heads/main', ok: true, reason: null },
        { ref: 'refs/heads/x', ok: false, reason: 'non-fast-forward' },
      ],
    },
  });
  // Band 1 may split the report's own pkt-lines anywhere.
  const muxed = Buffer.concat([
    band(2, 'Resolving deltas: 100%\r'),
    band(1, report.slice(0, 7)),
    band(1, report.slice(7)),
    bytes('0000'),
  ]);
  const answer = parseReceiveAnswer(muxed, true);
  t.strictSame(
    answer.messages.map((m) => m.toString()),
    ['Resolving deltas: 100%\r'],
  );
  t.match(answer.report, { unpack: 'ok', refs: [{ ok: true }, { ok: false, reason: 'non-fast-forward' }] });
  t.equal(
    parseReceiveAnswer(Buffer.concat([band(3, 'fatal: out of memory\n'), bytes('0000')]), true).fatal,
    'fatal: out of memory',
  );
  t.strictSame(
    parseReceiveAnswer(Buffer.alloc(0), true),
    { messages: [], report: null, fatal: null },
    'no output, no report',
  );
  t.match(
    parseReceiveAnswer(
      bytes(
        `${pkt('unpack index-pack abnormal exit\n').toString('latin1')}${pkt('ng refs/heads/main unpacker error\n').toString('latin1')}0000`,
      ),
      false,
    ),
    { report: { unpack: 'index-pack abnormal exit', refs: [{ ok: false, reason: 'unpacker error' }] } },
  );
});

t.test('encoding an answer: the report alone, or messages on band 2 and the report on band 1', async (t) => {
  const report = {
    unpack: 'ok',
    refs: [
      { ref: 'refs/heads/feature', ok: false, reason: 'only main' },
      { ref: 'refs/heads/main', ok: true, reason: null },
    ],
  };
  const plain = encodeReceiveAnswer({ messages: [bytes('ignored\n')], report }, false);
  t.equal(plain.toString('latin1'), '000eunpack ok\n0024ng refs/heads/feature only main\n0017ok refs/heads/main\n0000');
  const muxed = encodeReceiveAnswer({ messages: [bytes('gateway: hello\n')], report }, true);
  t.equal(
    muxed.toString('latin1'),
    `0014\x02gateway: hello\n${band(1, plain.toString('latin1')).toString('latin1')}0000`,
  );
  t.strictSame(parseReceiveAnswer(muxed, true).report, report, 'what is encoded reads back');
  const long = {
    unpack: 'ok',
    refs: Array.from({ length: 2000 }, (_, i) => ({
      ref: `refs/heads/${'x'.repeat(60)}${i}`,
      ok: false,
      reason: 'no',
    })),
  };
  const split = encodeReceiveAnswer({ messages: [], report: long }, true);
  t.strictSame(
    parseReceiveAnswer(split, true).report,
    long,
    'a report longer than one side-band packet is split and reads back',
  );
});
