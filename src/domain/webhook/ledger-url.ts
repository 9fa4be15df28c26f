// How the ledger records an outbound endpoint's URL (decision 357): a query string often carries a credential
// (`?token=…`, `?sig=…`), and the ledger is exported, pushed to sinks and kept for years. Parameter names
// stay (an auditor sees that a token was configured), their values do not; a fragment is dropped.

const mask = '***';

/** The URL as a ledger entry names it; unchanged when it has neither query nor fragment. */
export function ledgerUrl(url: string): string {
  const cut = url.search(/[?#]/);
  if (cut < 0) return url;
  const query = url.slice(cut).startsWith('?') ? url.slice(cut + 1).split('#')[0]! : '';
  const names = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0]}=${mask}`);
  return `${url.slice(0, cut)}${names.length > 0 ? `?${names.join('&')}` : ''}`;
}
