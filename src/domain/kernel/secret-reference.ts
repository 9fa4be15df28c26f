// Secrets are never written in configuration (docs/access.md, Secrets): a setting names where one is, `env:NAME` (an
// environment variable) or `file:/absolute/path` (a file whose content, trailing newline trimmed, is the
// secret). Parsing is pure; reading the value is the adapter's (src/adapters/system/secret-reference.ts).

export type SecretReference = Readonly<{ kind: 'env'; name: string }> | Readonly<{ kind: 'file'; path: string }>;

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The reference `text` names, or a message saying why it is none (never echoing more than the prefix). */
export function parseSecretReference(text: string): SecretReference | { error: string } {
  if (text.startsWith('env:')) {
    const name = text.slice(4);
    return envName.test(name) ? { kind: 'env', name } : { error: 'env: must name a variable ([A-Za-z_][A-Za-z0-9_]*)' };
  }
  if (text.startsWith('file:')) {
    const path = text.slice(5);
    return path.startsWith('/') ? { kind: 'file', path } : { error: 'file: must name an absolute path' };
  }
  return { error: 'a secret is given as a reference, env:NAME or file:/path, never as its value' };
}

/** How a reference is shown in reports and logs: where the secret is, never the secret. */
export const describeSecretReference = (ref: SecretReference): string =>
  ref.kind === 'env' ? `env:${ref.name}` : `file:${ref.path}`;
