import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

/** The Ed25519 key that signs ledger checkpoints (docs/audit.md); the public half is answered as a JWK. */
export type AuditSigningKey = Readonly<{ privateKey: CryptoKey; publicJwk: JWK; kid: string }>;

export const auditKeyFile = (dataDir: string) => join(dataDir, 'audit-signing-key.jwk');

/** The private JWK: gateway.audit-export.signing-key when set (replicas share it), else the data directory's file. */
function privateJwk(configured: string | null, dataDir: string): Promise<JWK> | JWK {
  if (configured !== null) return JSON.parse(configured) as JWK;
  const file = auditKeyFile(dataDir);
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return JSON.parse(readFileSync(file, 'utf8')) as JWK;
  }
  return (async () => {
    const { privateKey } = await generateKeyPair('Ed25519', { extractable: true });
    const jwk = await exportJWK(privateKey);
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${JSON.stringify(jwk)}\n`, { mode: 0o600, flag: 'wx' });
      return jwk;
    } catch {
      return JSON.parse(readFileSync(file, 'utf8')) as JWK; // another process wrote it first
    }
  })();
}

export async function auditSigningKey(configured: string | null, dataDir: string): Promise<AuditSigningKey> {
  const jwk = await privateJwk(configured, dataDir);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string')
    throw new Error('the audit signing key must be an Ed25519 private JWK (kty OKP, crv Ed25519, d, x)');
  const publicOnly: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
  const kid = await calculateJwkThumbprint(publicOnly);
  const privateKey = (await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey;
  return { privateKey, kid, publicJwk: { ...publicOnly, kid, alg: 'EdDSA', use: 'sig' } };
}
