import t from 'tap';
import { assertNothingChanged, expectProblem, session } from '../../support/assert.ts';
import { startTestGateway } from '../../support/gateway.ts';

// A 422 names every missing and every unknown field at once: a client fixes its request in one round trip
// (provisioning a machine credential used to take three).

t.test('a 422 lists every missing and every unknown field of the body at once', async (t) => {
  const gw = await startTestGateway(t, { GATEWAY_DEV_INSECURE_AUTH: 'true', GATEWAY_ROLES_ADMINS: 'root' });
  const root = session(gw, 'root');

  const empty = await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/tokens/machine', {}),
        422,
        'invalid-request',
        'an empty machine credential',
      ),
    'empty body',
  );
  for (const field of ['principal', 'name', 'apiScopes'])
    t.match(empty.detail, new RegExp(`'${field}'`), `the detail names the missing ${field}`);
  t.match(empty.detail, /body is missing the required properties/, 'as one sentence about the missing properties');

  const mixed = await assertNothingChanged(
    t,
    gw,
    async () =>
      expectProblem(
        t,
        await root.post('/api/v1/tokens/machine', {
          principal: 'ci-bot',
          colour: 'blue',
          shape: 'round',
          apiScopes: 'vetting:run',
        }),
        422,
        'invalid-request',
        'unknown fields, a missing one and a wrong type',
      ),
    'mixed body',
  );
  t.match(mixed.detail, /has unknown properties 'colour', 'shape'/, 'both unknown fields are named');
  t.match(mixed.detail, /missing the required property 'name'/, 'the missing field is named');
  t.match(mixed.detail, /body\/apiScopes must be array/, 'and the wrong type');
});
