/** Best-effort forge detection from a clone URL (a marketplace's forge and forgeProject). */
export function forgeOf(url: string | null): { forge: string; forgeProject: string } {
  if (url === null) return { forge: 'hosted', forgeProject: '' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { forge: 'unknown', forgeProject: '' };
  }
  const host = parsed.hostname.toLowerCase();
  const project = parsed.pathname
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  const forge =
    host === 'github.com' || host.endsWith('.github.com')
      ? 'github'
      : host.includes('gitlab')
        ? 'gitlab'
        : host === 'bitbucket.org'
          ? 'bitbucket'
          : host === 'codeberg.org' || host.includes('gitea') || host.includes('forgejo')
            ? 'gitea'
            : host.includes('azure.com') || host.includes('visualstudio.com')
              ? 'azure-devops'
              : 'git';
  return { forge, forgeProject: project };
}

/** The duplicate-URL warning of a registration: lowercased scheme and host, no trailing slash, no .git suffix. */
export function normalizedCloneUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname
      .replace(/\/+$/, '')
      .replace(/\.git$/i, '')
      .replace(/\/+$/, '');
    return `${parsed.protocol.toLowerCase()}//${parsed.host.toLowerCase()}${path}`;
  } catch {
    return url.replace(/\/+$/, '').replace(/\.git$/i, '');
  }
}
