// The hooks connector: every hook a plugin registers (hooks.json, plugin.json, the marketplace entry,
// skill, command and agent frontmatter) runs on the user's machine without asking, so its command line,
// and the plugin scripts it calls, are checked for remote code execution, credential access and data
// leaving the machine. Pattern-based and best effort: it flags what a reviewer must look at.
import type { Hook } from '../../plugin/layout-context.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { inside } from '../../plugin/paths.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner, type Severity } from '../findings.ts';

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
    // curl -o x.sh … && sh x.sh / chmod +x x.sh
    /\b(?:curl|wget)\b[^\n;&|]*?\s(?:-o|-O|--output|--output-document)[ =]?\s*["']?([^\s"';&|]+)["']?[^\n]*?(?:&&|;)\s*(?:sudo\s+)?(?:chmod\s+\S*x\S*\s+|(?:ba|z)?sh\s+|python[\d.]*\s+|source\s+|\.\s+)?["']?(?:\.\/)?\1(?![\w.-])/i,
  ],
};

const credentialAccess: Rule = {
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

const dataExfiltration: Rule = {
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
    /\b(?:requests|httpx|axios|session)\.(?:post|put|patch)\s*\(|\bmethod\s*[:=]\s*["'](?:POST|PUT|PATCH)["']/i,
    /\b(?:dig|nslookup|host)\s+[^|;&\n]*\$\(/,
  ],
};

const remoteFetch: Rule = {
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

/** What one command line (or script line) does that a reviewer must see; at most one risk per rule. */
export function shellRisks(command: string): ShellRisk[] {
  const hosts = urlHosts(command);
  // Talking only to this machine is neither a fetch nor a leak.
  const localOnly = hosts.length > 0 && hosts.every(isLoopback);
  const rce = firstMatch(remoteCodeExecution, command);
  const credential = firstMatch(credentialAccess, command);
  const exfiltration = localOnly ? null : firstMatch(dataExfiltration, command);
  const fetch = rce || exfiltration || localOnly ? null : firstMatch(remoteFetch, command);
  return [rce, credential, exfiltration, fetch].filter((risk): risk is ShellRisk => risk !== null);
}

/** Plugin files a command calls through ${CLAUDE_PLUGIN_ROOT}, as repository paths. */
const scriptPaths = (command: string, root: string): string[] =>
  [...command.matchAll(/\$\{?CLAUDE_PLUGIN_ROOT\}?((?:\/[^\s"'`;|&<>()$]+)+)/g)]
    .map((m) => inside(root, `.${m[1]!}`))
    .filter((path): path is string => path !== null);

const hookName = (hook: Hook): string =>
  `${hook.event}${hook.matcher ? ` [${excerpt(hook.matcher, 40)}]` : ''} hook (${hook.declaredBy})`;

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const scan: PureScanner = (input) => {
  const layout = layoutOf(input);
  const findings: Finding[] = [];
  for (const { file, area } of layout.unread) {
    if (area === 'hooks' || area === 'skills' || area === 'commands' || area === 'agents')
      findings.push(fileNotScanned(file, input.maxFileBytes));
  }
  for (const problem of layout.problems) {
    if (problem.area === 'hooks' && (problem.kind === 'syntax' || problem.kind === 'invalid')) {
      findings.push({
        id: 'hooks-unparseable',
        severity: 'MEDIUM',
        location: problem.location,
        message: `a hook declaration cannot be read and was not vetted: ${excerpt(problem.message, 160)}`,
      });
    }
  }
  const scripts = new Set<string>();
  let hooks = 0;
  for (const plugin of layout.plugins) {
    for (const hook of plugin.hooks) {
      hooks++;
      if (hook.type === 'http') {
        const host = urlHosts(hook.runs)[0] ?? null;
        if (host === null || !isLoopback(host)) {
          findings.push({
            id: 'hooks-remote-http-hook',
            severity: 'HIGH',
            location: hook.location,
            message: `${hookName(hook)} posts session events to ${host ?? 'a remote endpoint'}`,
          });
        }
        continue;
      }
      if (hook.type !== 'command') continue;
      for (const risk of shellRisks(hook.runs)) {
        findings.push({
          id: risk.id,
          severity: risk.severity,
          location: hook.location,
          message: `${hookName(hook)} ${risk.what}: ${risk.fragment}`,
        });
      }
      if (plugin.root === null) continue;
      for (const path of scriptPaths(hook.runs, plugin.root)) {
        if (scripts.has(path)) continue;
        scripts.add(path);
        const file = input.byPath.get(path);
        if (file?.oversized) findings.push(fileNotScanned(file, input.maxFileBytes));
        if (file?.text == null) continue;
        const lines = file.text.split(/\r?\n/);
        for (let k = 0; k < lines.length; k++) {
          const first = k;
          let line = lines[k]!;
          while (line.endsWith('\\') && k + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++k]!}`;
          if (/^\s*(?:#|\/\/)/.test(line)) continue; // comments do not run
          for (const risk of shellRisks(line)) {
            findings.push({
              id: risk.id,
              severity: risk.severity,
              location: locationOf(path, first + 1),
              message: `script run by ${hookName(hook)} ${risk.what}: ${risk.fragment}`,
            });
          }
        }
      }
    }
  }
  return {
    findings,
    detail: `${count(layout.plugins.length, 'plugin')}, ${count(hooks, 'hook')}, ${count(scripts.size, 'script')} examined`,
  };
};

export const hooksConnector: Readonly<{ name: 'hooks'; description: string; scan: PureScanner }> = {
  name: 'hooks',
  description:
    'Hooks of every plugin (hooks.json, plugin.json, marketplace entry, skill and agent frontmatter) and the plugin scripts they run: remote code execution, credential access, data sent off the machine',
  scan,
};
