import t from 'tap';
import { devSession } from '../../support/api.ts';
import { startTestGateway } from '../../support/gateway.ts';

t.test(
  'removal takes the name out of publish grants, keeps fetch grants, and says so only when a token held one',
  async (t) => {
    const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
    const api = devSession(gw, 'root');
    t.equal((await api.post('/api/v1/marketplaces', { name: 'pub', origin: 'hosted' })).status, 201);
    t.equal((await api.post('/api/v1/marketplaces', { name: 'other', origin: 'hosted' })).status, 201);
    const holder = (
      await api.post('/api/v1/tokens', { name: 'publisher', scopes: ['pub', 'other'], pushScopes: ['pub', 'other'] })
    ).body;
    const bystander = (await api.post('/api/v1/tokens', { name: 'reader', scopes: ['pub'] })).body;

    const removed = await api.delete('/api/v1/marketplaces/pub', { reason: 'moved' });
    t.equal(removed.status, 200, removed.text);
    t.strictSame(removed.body.pushScopeRemovedFromTokenIds, [holder.id], 'only the token that could publish there');
    const tokens = (await api.get('/api/v1/tokens')).body as Array<{
      id: number;
      scopes: string[];
      pushScopes: string[];
    }>;
    t.match(
      tokens.find((x) => x.id === holder.id),
      { pushScopes: ['other'], scopes: ['pub', 'other'] },
      'publish grant removed, fetch grants kept',
    );
    t.match(
      tokens.find((x) => x.id === bystander.id),
      { pushScopes: [], scopes: ['pub'] },
    );
    await gw.settled();
    const entries = (await api.get('/api/v1/audit?limit=100')).body.entries as Array<{
      event: string;
      marketplace: string;
      detail: string;
    }>;
    t.match(
      entries.filter((e) => e.event === 'marketplace-push-scopes-removed'),
      [{ marketplace: 'pub', detail: `publish grant removed from tokens ${holder.id}` }],
    );

    await api.post('/api/v1/tokens/' + holder.id + '/rotate');
    const again = await api.delete('/api/v1/marketplaces/other', { reason: 'gone' });
    t.equal(again.status, 200);
    await gw.settled();
    const after = (await api.get('/api/v1/audit?limit=100')).body.entries as Array<{ event: string }>;
    t.equal(
      after.filter((e) => e.event === 'marketplace-push-scopes-removed').length,
      2,
      'the rotated token still held other',
    );
    const none = await api.post('/api/v1/marketplaces', { name: 'empty', origin: 'hosted' });
    t.equal(none.status, 201);
    await api.delete('/api/v1/marketplaces/empty', { reason: 'unused' });
    await gw.settled();
    const last = (await api.get('/api/v1/audit?limit=100')).body.entries as Array<{ event: string }>;
    t.equal(
      last.filter((e) => e.event === 'marketplace-push-scopes-removed').length,
      2,
      'spec: written only when a token held one',
    );
  },
);
