import type { Rejection } from '../kernel/decider.ts';
import type { MarketplaceOrigin, PushPolicy } from './marketplace.events.ts';

export type RegistrationRequest = Readonly<{
  origin: MarketplaceOrigin;
  url: string | null;
  ref: string | null;
  pushPolicy: PushPolicy | null;
}>;

const boundary = (detail: string): Rejection => ({ code: 'trust-boundary', detail });

/** Registration (docs/marketplaces.md): the 400 cases, checked before anything is read upstream. */
export function registrationRefusal(request: RegistrationRequest, allowedSchemes: readonly string[]): Rejection | null {
  const { origin, url, ref, pushPolicy } = request;
  if (origin === 'hosted' && url !== null)
    return boundary('a hosted marketplace has no url: publishers push to /publish/{name}');
  if (origin === 'upstream' && url === null) return boundary('an upstream marketplace needs the url of its repository');
  if (origin === 'upstream' && pushPolicy !== null) return boundary('pushPolicy applies only to hosted marketplaces');
  // The upstream's default branch is ingested whatever its name (master too) and
  // served as main; `ref` can only name that served branch, so anything but main is refused.
  if (ref !== null && ref !== 'main' && ref !== 'refs/heads/main') {
    return boundary(
      `ref '${ref}' is refused: the gateway ingests the upstream's default branch, whatever its name (master too), ` +
        'and serves it as main; ref may only be main, or omitted',
    );
  }
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return boundary('the url cannot be parsed; give an absolute URL such as https://host/owner/repo.git');
  }
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (!allowedSchemes.includes(scheme)) {
    return boundary(
      `URL scheme '${scheme}' is not allowed; allowed: ${allowedSchemes.join(', ')} (gateway.allowed-url-schemes)`,
    );
  }
  // A backslash, whitespace or control character is read one way by a URL parser and another by git
  // (http://token\@host/ hides userinfo from the first): such URLs are refused, not interpreted.
  if (/[\\\s\u0000-\u001f\u007f]/.test(url))
    return boundary('the url contains a backslash, whitespace or a control character');
  if (parsed.username !== '' || parsed.password !== '' || hasRawUserinfo(url)) {
    return boundary('the url carries user information; credentials never go in URLs');
  }
  return null;
}

/**
 * The WHATWG parser drops an empty userinfo (`http://:@host/` has username and password ''), but
 * git and curl still see one: any `@` in the raw authority refuses the URL. The authority is what
 * follows the scheme and its slashes (the parser accepts `http:@host` and `http:///@host` for
 * special schemes) up to the first `/`, `?` or `#`, so an `@` in a path or query stays allowed.
 * Backslashes are refused before this is asked, so they need no handling here.
 */
function hasRawUserinfo(url: string): boolean {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/*/i, '');
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  return authority.includes('@');
}

/**
 * The URL as the gateway stores it and hands it to git: scheme and host lower-cased by the URL
 * parser, everything else as given. Call only on a URL the boundary accepted.
 */
export function canonicalUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search}`;
}
