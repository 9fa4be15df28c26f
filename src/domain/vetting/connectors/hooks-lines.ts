// Pattern-based checks of a hook's text, line by line: what the hooks connector applies to scripts in a
// language it has no parser for (Ruby, Perl, PowerShell, batch), to code given inline to an interpreter
// on a shell command line, and to the parts of a shell script the parser could not read. Best effort and
// over-reporting: a pattern matches a string literal as well as code.
import type { Severity } from '../../kernel/findings.ts';

type Rule = Readonly<{ id: string; severity: Severity; what: string; patterns: readonly RegExp[] }>;

const fetchers = String.raw`(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|downloadstring)`;
const interpreters = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:(?:ba|z|k|da|fi|c|tc)?sh|python[\d.]*|node|perl|ruby|php|pwsh|powershell|iex|invoke-expression|deno|bun|source)`;

/** Fetched content handed to an interpreter. */
export const remoteCodeExecution: Rule = {
  id: 'hooks-remote-code-execution',
  severity: 'CRITICAL',
  what: 'downloads and executes remote code',
  patterns: [
    // curl … | sh (through any filters, but not `||`)
    new RegExp(String.raw`\b${fetchers}\b[^;&\n]*?(?<!\|)\|(?!\|)\s*${interpreters}\b`, 'i'),
    // bash <(curl …), source <(wget …)
    new RegExp(String.raw`(?:\b(?:ba|z|k)?sh|\bsource|(?:^|\s)\.)\s+<\(\s*${fetchers}\b`, 'i'),
    // eval "$(curl …)", sh -c "`wget …`", python -c "$(curl …)"
    new RegExp(
      String.raw`\b(?:eval|exec|source|(?:ba|z|k)?sh\s+-c|python[\d.]*\s+-c|node\s+-e|perl\s+-e|ruby\s+-e)\s+["']?(?:\$\(|\x60)\s*${fetchers}\b`,
      'i',
    ),
    // iex (iwr …), Invoke-Expression (New-Object Net.WebClient).DownloadString(…)
    new RegExp(
      String.raw`\b(?:iex|invoke-expression)\b[\s(&]*(?:${fetchers}\b|new-object\s+(?:system\.)?net\.webclient)`,
      'i',
    ),
    // exec(urlopen(…).read()), eval(requests.get(…).text), eval(await (await fetch(…)).text())
    /\b(?:exec|eval)\s*\(\s*(?:await\s*\(?\s*)*(?:[\w.]*urlopen|requests\.get|httpx\.get|fetch)\s*\(/,
    // curl -o x.sh … && sh x.sh / chmod +x x.sh
    /\b(?:curl|wget)\b[^\n;&|]*?\s(?:-o|-O|--output|--output-document)[ =]?\s*["']?([^\s"';&|]+)["']?[^\n]*?(?:&&|;)\s*(?:sudo\s+)?(?:chmod\s+\S*x\S*\s+|(?:ba|z)?sh\s+|python[\d.]*\s+|source\s+|\.\s+)?["']?(?:\.\/)?\1(?![\w.-])/i,
  ],
};

export const credentialAccess: Rule = {
  id: 'hooks-credential-access',
  severity: 'HIGH',
  what: 'reads credentials or home-directory secrets',
  patterns: [
    /(?:~|\$\{?HOME\}?|%USERPROFILE%|\$env:USERPROFILE)[\\/]+\.(?:ssh|aws|gnupg|kube|docker|azure|netrc|npmrc|pypirc|git-credentials|config[\\/]+(?:gh|gcloud|hub))\b/i,
    /\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[\\/]credentials|\.ssh[\\/]/,
    /(?:^|[\s/"'=:<>(])\.(?:netrc|npmrc|pypirc|git-credentials|pgpass)\b/,
    /(?:^|[\s/"'=:<>(])\.env(?:\.[\w-]+)?(?=$|[\s"'/;|&)>`])/,
    /\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bkeychain\b|\bsecret-tool\s+lookup\b|\bgh\s+auth\s+token\b/i,
    // Secret-looking environment variables; the plugin's own user-config options are given to it on purpose.
    /\$\{?(?!CLAUDE_PLUGIN_OPTION_)[A-Za-z_][A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\b/,
    /\bprintenv\b|\/proc\/(?:self|\d+)\/environ|(?:^|[\s;&|(])env\s*\|/,
  ],
};

export const dataExfiltration: Rule = {
  id: 'hooks-data-exfiltration',
  severity: 'HIGH',
  what: 'sends data off the machine',
  patterns: [
    /\bcurl\b[^|;&\n]*\s(?:-[a-zA-Z]*[dFT](?=[\s@"'=]|$)|--data(?:-[a-z]+)?\b|--form\b|--upload-file\b|--json\b|-X\s*["']?(?:POST|PUT|PATCH)\b|--request[= ]\s*["']?(?:POST|PUT|PATCH)\b)/,
    /\bwget\b[^|;&\n]*\s--(?:post-data|post-file|body-data|body-file|method[= ](?:POST|PUT))/,
    /(?:^|[\s|;&(])(?:nc|ncat|netcat|socat|telnet)\s+\S/,
    /\/dev\/(?:tcp|udp)\//,
    /\b(?:scp|sftp)\s+\S/,
    /\brsync\b[^|;&\n]*\s(?:[\w.-]+@)?[\w-]+(?:\.[\w-]+)*:/,
    /\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;\n]*\s-(?:method\s+["']?(?:post|put|patch)|body\b|infile\b)/i,
    /\b(?:dig|nslookup|host)\s+[^|;&\n]*\$\(/,
  ],
};

/**
 * An HTTP client's POST (`requests.post(`, `method: "POST"`): what an API client does. It is data leaving
 * the machine only in a program that also reads credentials (hooks.connector.ts decides, per file).
 */
export const httpPost: Rule = {
  id: 'hooks-data-exfiltration',
  severity: 'HIGH',
  what: 'posts data off the machine with an HTTP client',
  patterns: [
    /\b(?:requests|httpx|axios|session)\.(?:post|put|patch)\s*\(|\bmethod\s*[:=]\s*["'](?:POST|PUT|PATCH)["']/i,
  ],
};

export const remoteFetch: Rule = {
  id: 'hooks-remote-fetch',
  severity: 'MEDIUM',
  what: 'fetches from the network',
  patterns: [new RegExp(String.raw`\b${fetchers}\b|\bgit\s+clone\b|\burlopen\s*\(|\brequests\.get\s*\(`, 'i')],
};

const loopback = /^(?:localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0)$/i;
/** Hosts of the URLs in a text. */
export const urlHosts = (text: string): string[] =>
  [...text.matchAll(/\b(?:https?|wss?):\/\/(?:[^\s/@'"`]*@)?(\[[^\]\s]+\]|[^\s/:'"`?#)]+)/gi)].map((m) =>
    m[1]!.toLowerCase(),
  );
export const isLoopback = (host: string): boolean => loopback.test(host);

/**
 * A matched fragment for a message: one line, capped, with URL credentials and token-like strings masked,
 * since findings are shown and stored and must not carry a secret a command happens to hold.
 */
export const excerpt = (text: string, max = 80): string => {
  const flat = text
    .replace(/\/\/[^\s/@]+@/g, '//***@')
    .replace(/(?=[\w+=-]*\d)(?=[\w+=-]*[A-Za-z])[\w+=-]{24,}/g, '***')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export type ShellRisk = Readonly<{ id: string; severity: Severity; what: string; fragment: string }>;

const firstMatch = (rule: Rule, text: string): ShellRisk | null => {
  for (const pattern of rule.patterns) {
    const match = pattern.exec(text);
    // From where the match starts, so the message shows the command's target too (capped, one line).
    if (match)
      return {
        id: rule.id,
        severity: rule.severity,
        what: rule.what,
        fragment: excerpt(text.slice(match.index, match.index + Math.max(match[0].length, 80))),
      };
  }
  return null;
};

/**
 * A word every pattern above needs (a fetcher, a socket tool, a credential path, `$`, `~`, `env` …): a line
 * without one matches none of them, and most lines of a script are such lines.
 */
const mayMatch =
  /curl|wget|iwr|irm|invoke|aria2c|downloadstring|iex|urlopen|requests|httpx|axios|session|method|fetch|\bnc\b|ncat|netcat|socat|telnet|\/dev\/|\/proc\/|scp|sftp|rsync|\b(?:dig|nslookup|host)\s|git\s|\.ssh|\.aws|id_|\.(?:netrc|npmrc|pypirc|git-credentials|pgpass)|gnupg|security|keychain|secret-tool|gh\s|\$|env|~|userprofile/i;

/**
 * What one line of a script the shell parser does not read (Python, JavaScript, PowerShell) does that a
 * reviewer must see, by patterns; at most one risk per rule.
 */
export function lineRisks(command: string): ShellRisk[] {
  if (!mayMatch.test(command)) return [];
  const hosts = urlHosts(command);
  // Talking only to this machine is neither a fetch nor a leak.
  const localOnly = hosts.length > 0 && hosts.every(isLoopback);
  const rce = firstMatch(remoteCodeExecution, command);
  const credential = firstMatch(credentialAccess, command);
  const exfiltration = localOnly ? null : (firstMatch(dataExfiltration, command) ?? firstMatch(httpPost, command));
  const fetch = rce || exfiltration || localOnly ? null : firstMatch(remoteFetch, command);
  return [rce, credential, exfiltration, fetch].filter((risk): risk is ShellRisk => risk !== null);
}
