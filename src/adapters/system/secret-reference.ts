import { readFileSync } from 'node:fs';
import { describeSecretReference, type SecretReference } from '../../domain/kernel/secret-reference.ts';

/** A secret reference that could not be read; its message names the reference, never a value. */
export class SecretReferenceError extends Error {
  constructor(ref: SecretReference, why: string) {
    super(`${describeSecretReference(ref)}: ${why}`);
    this.name = 'SecretReferenceError';
  }
}

/** Reads the secret a reference names, at the moment of use (a rotated file or variable is picked up). */
export function readSecretReference(
  ref: SecretReference,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (ref.kind === 'env') {
    const value = env[ref.name];
    if (value === undefined || value === '') throw new SecretReferenceError(ref, 'the variable is not set');
    return value;
  }
  let text: string;
  try {
    text = readFileSync(ref.path, 'utf8');
  } catch (error) {
    throw new SecretReferenceError(
      ref,
      `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new SecretReferenceError(ref, 'the file is empty');
  return value;
}
