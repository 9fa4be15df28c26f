import t from 'tap';
import { appendFacts } from '../../../src/adapters/eventstore/append-facts.ts';
import { fact } from '../../../src/domain/events.ts';
import { streams } from '../../../src/domain/kernel/streams.ts';
import { expectJson, expectProblem, session } from '../../support/assert.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

// A registration appends the name's reservation, then the marketplace; a removal appends the removal, then
// the name's release. A crash between the two (found by test/faults: kill -9 of the gateway) left the name
// held by a marketplace that is not live, and every later registration of the name answered 409.

const devEnv = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

/** What a gateway killed between a registration's two appends leaves behind: the reservation alone. */
async function cutOffReservation(gw: TestGateway, name: string, marketplaceId: number, reservedAt: string) {
  await appendFacts(
    gw.core.store,
    streams.marketplaceName(name),
    [fact('marketplace-name-reserved', { name, marketplaceId, reservedAt })],
    { principal: 'root', actorType: 'human', correlationId: `cut-off-${name}`, at: reservedAt },
    'any',
  );
}

t.test('a name left reserved by a cut-off registration or removal can be registered again', async (t) => {
  const gw = await startTestGateway(t, devEnv);
  const root = session(gw, 'root');

  await cutOffReservation(gw, 'orphan', 9001, new Date(Date.now() - 3_600_000).toISOString());
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'orphan', origin: 'hosted' }),
    201,
    'a reservation an hour old whose marketplace never registered is taken over',
  );

  await cutOffReservation(gw, 'young', 9002, new Date().toISOString());
  const young = await expectProblem(
    t,
    await root.post('/api/v1/marketplaces', { name: 'young', origin: 'hosted' }),
    409,
    'marketplace-name-taken',
    'a reservation made a moment ago may belong to a registration still running',
  );
  t.notOk('holder' in young, 'the 409 does not name the holder');

  const gone = await expectJson<{ id: number }>(
    t,
    await root.post('/api/v1/marketplaces', { name: 'gone', origin: 'hosted' }),
    201,
  );
  await expectJson(t, await root.request('DELETE', '/api/v1/marketplaces/gone', { reason: 'retired' }), 200, 'removed');
  // The removal's release cut off: the removed marketplace still holds the name.
  await cutOffReservation(gw, 'gone', gone.id, new Date().toISOString());
  await expectJson(
    t,
    await root.post('/api/v1/marketplaces', { name: 'gone', origin: 'hosted' }),
    201,
    'a removed holder gives the name up at once',
  );

  await expectProblem(
    t,
    await root.post('/api/v1/marketplaces', { name: 'gone', origin: 'hosted' }),
    409,
    'marketplace-name-taken',
    'a live holder keeps its name',
  );
  const listed = await expectJson<Array<{ name: string }>>(t, await root.get('/api/v1/marketplaces'), 200);
  const names = listed.map((m) => m.name).sort();
  t.strictSame(names, ['gone', 'orphan'], 'one live marketplace per name');
});
