// The local account's password (docs/local-idp.md): generated at first start, shown once, stored only as a
// scrypt hash with a salt under the data directory (mode 0600), compared in constant time.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The one account of the built-in issuer; its subject is the principal a session gets. */
export const localAdmin = 'admin';

/** What the password file holds: the parameters, the salt and the derived key, never the password. */
export type PasswordRecord = Readonly<{
  algorithm: 'scrypt';
  N: number;
  r: number;
  p: number;
  keyLength: number;
  salt: string;
  hash: string;
  createdAt: string;
}>;

// OWASP's scrypt floor is N=2^17, r=8, p=1 for 128 MiB; 2^15 keeps a sign-in near 100 ms and 32 MiB
// on a small machine, and the attempts are limited besides (src/http/auth/local-idp-attempts.ts).
const params = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const;

const scrypt = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keyLength, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );

/** The directory of the built-in issuer's state under the data directory. */
export const localIdpDir = (dataDir: string): string => join(dataDir, 'local-idp');
/**
 * The issuer's own directory, 0700, under a data directory created with the usual mode: a data directory
 * made 0700 here would shut out the embedded PostgreSQL, which runs as the postgres user under root.
 */
export function ensureLocalIdpDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(localIdpDir(dataDir), { recursive: true, mode: 0o700 });
}

export const passwordFile = (dataDir: string): string => join(localIdpDir(dataDir), 'admin.password.json');

/** 144 random bits in 24 URL-safe characters: strong, and copied without quoting. */
export const generatePassword = (): string => randomBytes(18).toString('base64url');

export async function hashPassword(password: string, createdAt: Date): Promise<PasswordRecord> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params.keyLength, { N: params.N, r: params.r, p: params.p });
  return {
    algorithm: 'scrypt',
    ...params,
    salt: salt.toString('base64'),
    hash: key.toString('base64'),
    createdAt: createdAt.toISOString(),
  };
}

export async function verifyPassword(record: PasswordRecord, password: string): Promise<boolean> {
  const expected = Buffer.from(record.hash, 'base64');
  // Bounded work whatever is typed: the form's body limit caps the length long before this.
  const key = await scrypt(password.slice(0, 1024), Buffer.from(record.salt, 'base64'), expected.length, {
    N: record.N,
    r: record.r,
    p: record.p,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Writes a file readable by its owner only, atomically (a crash leaves the old file or the new one). */
export function writePrivateFile(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, path);
}

export function readPasswordRecord(dataDir: string): PasswordRecord | null {
  const file = passwordFile(dataDir);
  if (!existsSync(file)) return null;
  const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<PasswordRecord>;
  if (
    record.algorithm !== 'scrypt' ||
    typeof record.salt !== 'string' ||
    typeof record.hash !== 'string' ||
    ![record.N, record.r, record.p, record.keyLength].every((n) => Number.isInteger(n))
  )
    throw new Error(`${file} is not a password record of the built-in issuer; run gateway local-idp reset-password`);
  return record as PasswordRecord;
}

/** A new password for the local account: its hash replaces the stored one; the password is returned to be shown once. */
export async function resetPassword(dataDir: string, now: Date): Promise<string> {
  const password = generatePassword();
  const record = await hashPassword(password, now);
  ensureLocalIdpDir(dataDir);
  writePrivateFile(passwordFile(dataDir), `${JSON.stringify(record, null, 2)}\n`);
  return password;
}

/**
 * The first password when none is stored yet: generated and hashed, not yet stored (`store` writes it).
 * The gateway stores it only once it listens and shows it: a start that fails before (a port already in
 * use) leaves nothing behind, and the next start generates and shows one again. null when one is stored.
 */
export async function firstPassword(dataDir: string, now: Date): Promise<{ password: string; store(): void } | null> {
  if (readPasswordRecord(dataDir) !== null) return null;
  const password = generatePassword();
  const record = await hashPassword(password, now);
  return {
    password,
    store: () => {
      ensureLocalIdpDir(dataDir);
      writePrivateFile(passwordFile(dataDir), `${JSON.stringify(record, null, 2)}\n`);
    },
  };
}
