// Ready-to-copy commands for a personal access token (docs/facade.md, Credentials: HTTP Basic, only the
// password is read). The token stays out of every URL: a URL with a password ends up in .git/config,
// shell history of other tools and Claude Code's known_marketplaces.json. The clone URL ends in `.git`:
// Claude Code needs the suffix to treat it as a git repository.
import { cloneUrl } from '../../api/marketplaces';

/** The username is ignored by the facade; a fixed one keeps the helper's entry recognisable. */
export const gitUser = 'gateway';

/** A one-off clone: the token as an HTTP Basic header for this command only (not stored in .git/config). */
export function gitCloneCommand(origin: string, marketplace: string, token: string): string {
  const basic = btoa(`${gitUser}:${token}`);
  return `git -c http.extraHeader="Authorization: Basic ${basic}" clone ${cloneUrl(origin, marketplace)}`;
}

/**
 * A lasting setup for git and Claude Code: a credential helper for the gateway's origin, given the token
 * once through `git credential approve`. `store` keeps it in ~/.git-credentials (mode 600); a keychain
 * helper (osxkeychain, manager, libsecret) is a drop-in replacement.
 */
export function credentialHelperSnippet(origin: string, token: string): string {
  return [
    `git config --global credential.${origin}.helper store`,
    `git credential approve <<EOF`,
    `url=${origin}/git/`,
    `username=${gitUser}`,
    `password=${token}`,
    `EOF`,
  ].join('\n');
}

export const claudeAddCommand = (origin: string, marketplace: string): string =>
  `claude plugin marketplace add ${cloneUrl(origin, marketplace)}`;
