// Decision 422: related ledger entries read as one act (a fetch, an ingest and its vetting, a repeated
// event), every entry kept, in order, in exactly one group.
import t from 'tap';
import { groupLedger, type GroupableEntry } from '../../../portal/src/components/ledger-groups.ts';

let next = 1;
const base = Date.parse('2026-03-01T10:00:00Z');
/** An entry `seconds` after 10:00; ids grow in the order entries are made (oldest first). */
const entry = (event: string, seconds: number, fields: Partial<GroupableEntry> = {}): GroupableEntry => ({
  id: next++,
  ts: new Date(base + seconds * 1000).toISOString(),
  principal: 'root',
  marketplace: 'acme',
  event,
  sha: null,
  detail: null,
  ...fields,
});
/** As the ledger answers: newest first. */
const newestFirst = (entries: GroupableEntry[]) => [...entries].reverse();
const sha = 'a'.repeat(40);

t.test('an ingest is one act: capture, verdicts, outcome, success', async (t) => {
  const ingest = [
    entry('snapshot-captured', 0, { sha }),
    ...['manifest', 'secrets', 'licenses', 'hooks', 'mcp', 'paths', 'size'].map((c, i) =>
      entry('vetting-verdict', 1 + i, { sha, detail: `${c} PASS` }),
    ),
    entry('vetting-completed', 9, { sha, detail: 'snapshot 1: trigger=ingest outcome=CLEAR count=7 run=r chain=a' }),
    entry('ingest-succeeded', 10, { sha }),
  ];
  const groups = groupLedger(newestFirst(ingest));
  t.equal(groups.length, 1, 'one group');
  t.equal(groups[0]?.kind, 'ingest');
  t.equal(groups[0]?.title, 'Ingest and vetting: Clear', 'named by the act and its outcome');
  t.equal(groups[0]?.entries.length, 10, 'holding every entry');
  t.equal(groups[0]?.newest.event, 'ingest-succeeded');
  t.equal(groups[0]?.oldest.event, 'snapshot-captured');
});

t.test('a clone is one act; clones in a row are counted; a ref listing alone is no fetch', async (t) => {
  const clone = [entry('info-refs', 0), entry('upload-pack', 1)];
  t.same(
    groupLedger(newestFirst(clone)).map((g) => [g.kind, g.title, g.entries.length]),
    [['fetch', 'Git fetch', 2]],
  );
  const three = [0, 5, 10].flatMap((s) => [entry('info-refs', s), entry('upload-pack', s + 1)]);
  t.same(
    groupLedger(newestFirst(three)).map((g) => g.title),
    ['Git fetches ×3'],
  );
  const listing = [entry('info-refs', 0), entry('info-refs', 3)];
  t.same(
    groupLedger(newestFirst(listing)).map((g) => g.title),
    ['Ref advertisement ×2'],
  );
  const two = [entry('info-refs', 0), entry('upload-pack', 1), entry('info-refs', 2, { principal: 'bob' })];
  t.same(
    groupLedger(newestFirst(two)).map((g) => [g.title, g.newest.principal]),
    [
      ['Ref advertisement', 'bob'],
      ['Git fetch', 'root'],
    ],
    "another principal's fetch is an act of its own",
  );
});

t.test('a repeated event groups within its window only, by the same principal on the same marketplace', async (t) => {
  const reads = [
    entry('roles-read', 0, { marketplace: '-' }),
    entry('roles-read', 30, { marketplace: '-' }),
    entry('roles-read', 60, { marketplace: '-' }),
    entry('roles-read', 60 + 10 * 60, { marketplace: '-' }),
    entry('roles-read', 60 + 10 * 60 + 1, { marketplace: '-', principal: 'ada' }),
  ];
  t.same(
    groupLedger(newestFirst(reads)).map((g) => [g.title, g.entries.length]),
    [
      ['Role grants read', 1],
      ['Role grants read', 1],
      ['Role grants read ×3', 3],
    ],
  );
  const verdicts = [1, 2, 3, 4, 5, 6, 7].map((s) => entry('vetting-verdict', s, { sha: null }));
  t.same(
    groupLedger(newestFirst(verdicts)).map((g) => g.title),
    ['Vetting verdict ×7'],
  );
});

t.test('every entry is in exactly one group, in ledger order', async (t) => {
  const mixed = [
    entry('marketplace-registered', 0),
    entry('snapshot-captured', 1, { sha }),
    entry('vetting-verdict', 2, { sha }),
    entry('snapshot-approved', 3, { sha }),
    entry('info-refs', 4, { principal: 'ada' }),
    entry('upload-pack', 5, { principal: 'ada' }),
    entry('roles-read', 6),
  ];
  const input = newestFirst(mixed);
  const groups = groupLedger(input);
  t.same(
    groups.flatMap((g) => g.entries.map((e) => e.id)),
    input.map((e) => e.id),
  );
  t.same(
    groups.map((g) => g.title),
    ['Role grants read', 'Git fetch', 'Snapshot approved', 'Ingest and vetting', 'Marketplace registered'],
  );
  t.same(groupLedger([]), []);
});
