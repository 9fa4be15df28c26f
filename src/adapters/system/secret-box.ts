import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Secrets the gateway must use again (inbound webhook secrets, signing secrets) are stored sealed with
 * AES-256-GCM (docs/access.md, Secrets): events and read models carry `v1.<iv>.<tag>.<ciphertext>`, never the
 * cleartext. The key is gateway.secrets.key (32 bytes as base64, or any passphrase, hashed to 32 bytes);
 * unset, one is generated into `<data-dir>/secrets.key` (mode 0600). Replicas must share the key.
 */
export type SecretBox = Readonly<{ seal(secret: string): string; open(sealed: string): string }>;

export function secretKey(configured: string | null, dataDir: string): Buffer {
  if (configured !== null) {
    const decoded = Buffer.from(configured, 'base64');
    return decoded.length === 32 ? decoded : createHash('sha256').update(configured, 'utf8').digest();
  }
  const file = join(dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
