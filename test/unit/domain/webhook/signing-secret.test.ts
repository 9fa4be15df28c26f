import { randomBytes } from 'node:crypto';
import t from 'tap';
import { isSigningSecret } from '../../../../src/domain/webhook/signing-secret.ts';

t.test('a signing secret is whsec_ and the base64 of 24 or more bytes', async (t) => {
  for (const n of [24, 32, 64]) t.ok(isSigningSecret(`whsec_${randomBytes(n).toString('base64')}`), `${n} bytes`);
  for (const [bad, why] of [
    [`whsec_${randomBytes(23).toString('base64')}`, '23 bytes'],
    [randomBytes(24).toString('base64'), 'no prefix'],
    ['whsec_', 'empty'],
    ['whsec_not base64 at all!!', 'not base64'],
    [`whsec_${randomBytes(24).toString('base64').slice(1)}`, 'cut'],
    ['plain-password', 'a password'],
  ] as const) {
    t.notOk(isSigningSecret(bad), why);
  }
});
