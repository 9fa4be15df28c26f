// The built-in issuer's pages: server-rendered HTML without script or inline style (they pass a
// Content-Security-Policy of default-src 'self'), one linked stylesheet, labelled fields.
import { localAdmin } from './password.ts';

export const stylesheetPath = '/local-idp/assets/sign-in.css';

/** The policy the pages are served under. */
export const pageSecurityPolicy =
  "default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${stylesheetPath}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export type LoginForm = Readonly<{ uid: string; username?: string; error?: string }>;

/** The sign-in form; an error names no field (which part was wrong is not told). */
export function loginPage({ uid, username, error }: LoginForm): string {
  const alert = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>\n` : '';
  return page(
    'Sign in to the gateway',
    `<h1>Sign in to the gateway</h1>
<p>The gateway's built-in sign-in: no identity provider is configured.</p>
${alert}<form method="post" action="/local-idp/interaction/${encodeURIComponent(uid)}/login">
<label for="username">User name</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(username ?? localAdmin)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${error ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>
<p class="hint">The password was printed once on the gateway's console at its first start. ` +
      `Forgotten? Run <code>gateway local-idp reset-password</code> on the gateway's machine.</p>`,
  );
}

export function errorPage(message: string): string {
  return page(
    'Sign-in problem',
    `<h1>The sign-in could not go on</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p><a href="/oauth2/authorization/idp">Start the sign-in again</a></p>`,
  );
}

export const stylesheet = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; display: flex; min-height: 100vh; align-items: center; justify-content: center; }
main { width: min(24rem, 90vw); padding: 2rem; border: 1px solid #8886; border-radius: 0.5rem; }
h1 { font-size: 1.4rem; margin-top: 0; }
form { display: grid; gap: 0.4rem; }
label { font-weight: 600; margin-top: 0.6rem; }
input { font: inherit; padding: 0.5rem; border: 1px solid #888; border-radius: 0.25rem; }
button { font: inherit; margin-top: 1rem; padding: 0.6rem; border: 0; border-radius: 0.25rem; background: #1d4ed8; color: #fff; cursor: pointer; }
button:focus-visible, input:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.error { color: #b91c1c; font-weight: 600; }
@media (prefers-color-scheme: dark) { .error { color: #fca5a5; } }
.hint { font-size: 0.9rem; }
`;
