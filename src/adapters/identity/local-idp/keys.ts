// The built-in issuer's secrets: its token signing key and the keys of its cookies, generated at
// first start into the data directory (mode 0600) so that they survive a restart; never logged.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { ensureLocalIdpDir, localIdpDir, writePrivateFile } from './password.ts';

export type LocalIdpKeys = Readonly<{ signingKey: JWK; cookieKeys: readonly string[] }>;

/** ES256: generated in a millisecond, verified by every relying party. */
export const signingAlg = 'ES256';

const keysFile = (dataDir: string): string => join(localIdpDir(dataDir), 'keys.json');

async function generate(): Promise<LocalIdpKeys> {
  const { privateKey } = await generateKeyPair(signingAlg, { extractable: true });
  const kid = randomBytes(8).toString('hex');
  return {
    signingKey: { ...(await exportJWK(privateKey)), kid, alg: signingAlg, use: 'sig' },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

export async function loadOrCreateKeys(dataDir: string): Promise<LocalIdpKeys> {
  const file = keysFile(dataDir);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalIdpKeys>;
    if (stored.signingKey?.d && Array.isArray(stored.cookieKeys) && stored.cookieKeys.length > 0)
      return stored as LocalIdpKeys;
    throw new Error(`${file} holds no keys of the built-in issuer; remove it to have new ones generated`);
  }
  const keys = await generate();
  ensureLocalIdpDir(dataDir);
  writePrivateFile(file, `${JSON.stringify(keys)}\n`);
  return keys;
}
