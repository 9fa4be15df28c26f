// Decision 421: GET /api/v1/estate answers 404 until a reconciliation has applied (docs/estate.md); the problem
// says whether gateway.estate.file is set (`configured`), so a client offers "reconcile now" only where a
// reconcile can apply something.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { devSession } from '../../support/api.ts';
import { eventually, ledger } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

const env = { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' };

t.test('without gateway.estate.file the 404 says configured: false', async (t) => {
  const gw = await startTestGateway(t, env);
  const answer = await devSession(gw, 'root').get('/api/v1/estate');
  t.equal(answer.status, 404);
  t.match(answer.headers.get('content-type'), /^application\/problem\+json/);
  t.match(answer.body, { status: 404, type: /\/problems\/not-found$/, configured: false });
  t.match(answer.body.detail, /gateway\.estate\.file is not set/);
});

t.test('with a file that applied nothing yet the 404 says configured: true', async (t) => {
  const file = join(t.testdir(), 'estate.yaml');
  writeFileSync(file, ['marketplaces:', '  - name: broken', '    colour: blue', ''].join('\n'));
  const gw = await startTestGateway(t, { ...env, GATEWAY_ESTATE_FILE: file });
  // The startup run refuses the file and records why; no report exists.
  await eventually(async () => (await ledger(gw, 'estate-reconciliation-failed')).length > 0, 20_000);
  const answer = await devSession(gw, 'root').get('/api/v1/estate');
  t.equal(answer.status, 404);
  t.match(answer.body, { status: 404, type: /\/problems\/not-found$/, configured: true });
  t.equal((await devSession(gw, 'nobody').get('/api/v1/estate')).status, 403, 'a caller without a role learns nothing');
});
