// Decision 420: GET /api/v1/audit narrows by principal, event and an inclusive time range besides the
// marketplace (docs/audit.md), each validated (422 invalid-request), paged by `before` like the unfiltered
// ledger, with the total still counting the whole ledger; the filters are served by indexes.
import t from 'tap';
import { sql } from '../../../src/adapters/postgres/pool.ts';
import { devSession, type ApiAnswer } from '../../support/api.ts';
import { settle } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

type Entry = { id: number; ts: string; principal: string; event: string; marketplace: string };
type Screen = { entries: Entry[]; nextBefore?: number; total: number; totalIsEstimate: boolean };

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root,watcher' };

const ids = (entries: readonly Entry[]) => entries.map((e) => e.id);

t.test('the ledger filtered by principal, event and time range, paged, validated and indexed', async (t) => {
  const gw = await startTestGateway(t, env);
  const root = devSession(gw, 'root');
  const watcher = devSession(gw, 'watcher');
  for (const name of ['u1', 'u2', 'u3', 'u4'])
    t.equal((await root.post('/api/v1/roles', { principal: name, role: 'auditor' })).status, 201, `grant ${name}`);
  for (let i = 0; i < 2; i++) t.equal((await root.get('/api/v1/roles')).status, 200, 'root reads the grants');
  for (let i = 0; i < 3; i++) t.equal((await watcher.get('/api/v1/roles')).status, 200, 'watcher reads the grants');
  await settle(gw);

  const read = async (query: string): Promise<Screen> => {
    const answer: ApiAnswer = await watcher.get(`/api/v1/audit?limit=1000${query ? `&${query}` : ''}`);
    t.equal(answer.status, 200, `GET /api/v1/audit ${query}: ${answer.text.slice(0, 200)}`);
    return answer.body as Screen;
  };
  const all = (await read('')).entries;
  t.ok(all.length >= 9, `the ledger holds the grants and reads (${all.length} entries)`);

  const byWatcher = await read('principal=watcher');
  t.same(ids(byWatcher.entries), ids(all.filter((e) => e.principal === 'watcher')), 'principal: exactly theirs');
  t.equal(byWatcher.entries.length, 3, "watcher's three reads");
  t.equal(byWatcher.total, all.length, 'the total counts the whole ledger, whatever the filter');

  const granted = await read('event=role-granted');
  t.same(ids(granted.entries), ids(all.filter((e) => e.event === 'role-granted')), 'event: exactly those');
  t.equal(granted.entries.length, 4, 'four grants');

  const both = await read('principal=root&event=roles-read');
  t.same(ids(both.entries), ids(all.filter((e) => e.principal === 'root' && e.event === 'roles-read')), 'combined');
  t.equal(both.entries.length, 2, "root's two reads");

  // An inclusive range between two recorded instants, with a zone other than UTC on one bound.
  const oldestFirst = [...all].reverse();
  const from = oldestFirst[2]!.ts;
  const to = oldestFirst.at(-3)!.ts;
  const inRange = all.filter((e) => e.ts >= from && e.ts <= to);
  const toPlusTwo = new Date(Date.parse(to) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
  const ranged = await read(`from=${encodeURIComponent(from)}&to=${encodeURIComponent(toPlusTwo)}`);
  t.same(ids(ranged.entries), ids(inRange), `from ${from} to ${to}, both inclusive`);
  t.ok(inRange.length > 0 && inRange.length < all.length, 'the range holds some entries, not all');
  t.same(ids((await read(`from=${encodeURIComponent(from)}`)).entries), ids(all.filter((e) => e.ts >= from)), 'from');
  t.same(ids((await read(`to=${encodeURIComponent(to)}`)).entries), ids(all.filter((e) => e.ts <= to)), 'to alone');
  const ahead = new Date(Date.now() + 3_600_000).toISOString();
  t.same((await read(`from=${encodeURIComponent(ahead)}`)).entries, [], 'a range in the future holds nothing');

  // Paging by before keeps the filter.
  const first = (await watcher.get('/api/v1/audit?event=role-granted&limit=2')).body as Screen;
  t.equal(first.entries.length, 2);
  t.type(first.nextBefore, 'number', 'a filtered screen says where the next one starts');
  const second = (await watcher.get(`/api/v1/audit?event=role-granted&limit=2&before=${first.nextBefore}`))
    .body as Screen;
  t.same([...ids(first.entries), ...ids(second.entries)], ids(granted.entries), 'in order');
  t.equal(second.nextBefore, undefined, 'and ends at the oldest grant');

  // Each bad value is refused with the catalogue's problem, before anything is read.
  for (const query of [
    `from=${encodeURIComponent(to)}&to=${encodeURIComponent(from)}`,
    'from=2026-03-01',
    'to=2026-03-01T10:00:00',
    'to=yesterday',
    'event=Upload%20Pack',
    'event=',
    'principal=',
    `principal=${'p'.repeat(257)}`,
  ]) {
    const refused = await watcher.get(`/api/v1/audit?${query}`);
    t.equal(refused.status, 422, `${query.slice(0, 60)} is refused`);
    t.match(refused.body?.type, /\/problems\/invalid-request$/, 'as invalid-request');
    t.match(refused.headers.get('content-type'), /^application\/problem\+json/);
  }
  t.equal((await devSession(gw, 'nobody').get('/api/v1/audit?principal=root')).status, 403, 'auditor or admin only');

  // The filters are served by indexes, not a walk of the whole ledger.
  const indexes = await gw.core.pool.anyFirst(
    sql.unsafe`select indexdef from pg_indexes where tablename = 'ledger_entries' order by indexname`,
  );
  for (const column of ['(principal, id)', '(event, id)', '(ts)'])
    t.ok(
      indexes.some((def) => String(def).endsWith(column)),
      `an index on ledger_entries ${column}`,
    );
});
