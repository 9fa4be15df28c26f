// Which of secretlint's recommended rules can report anything in a file, decided before secretlint runs. Each
// rule reports only where its pattern matches, and each pattern holds a fixed piece of text (a token's prefix
// such as `ghp_`, `://` before a credential URL's user, `PRIVATE KEY` in a PEM header): a file without that
// piece gives the rule nothing to report, so running only the rules whose piece is present gives the very
// findings that running them all gives, in the same order. Most files hold no such piece and are not handed
// to secretlint at all, which is where the connector spent its time (every rule's pattern over every file).
//
// Every gate below is a necessary condition of its rule as @secretlint/secretlint-rule-preset-recommend
// 13.0.7 writes it (the pattern is quoted beside it); a rule the table does not know always runs. The test
// (test/unit/adapters/vetting/secrets-gates.test.ts) checks the version, one credential per rule, and that
// gated and ungated scans agree on every fixture.

/** What the connector hands secretlint for one file, as the gates need it. */
export type GateSource = Readonly<{ content: string; filePath: string; ext?: string }>;

// Where a rule's fixed piece could be, found without searching the text once per piece: a search for a piece
// whose first letter is common in English (`hvs.`, `tskey-`, `npm_`) stops at nearly every character. Instead
// the text is searched once for each of a few characters that are rare in prose (`_`, `-`, `.`, `:`, `=`), and
// the characters before each one are compared with the pieces that end there.

/** The pieces that end just before a `_`, `-` or `.`, by the two characters before it. */
const endingBefore = (pieces: readonly string[]): ReadonlyMap<string, readonly string[]> => {
  const map = new Map<string, string[]>();
  for (const piece of pieces) map.set(piece.slice(-2), [...(map.get(piece.slice(-2)) ?? []), piece]);
  return map;
};

const beforeUnderscore = endingBefore([
  'npm',
  'gsk',
  'hf',
  'lin_api',
  'ntn',
  'shppa',
  'shpca',
  'shpat',
  'shpss',
  'sk_live',
  'sk_test',
  'rk_live',
  'rk_test',
  'ghp',
  'gho',
  'ghu',
  'ghs',
  'ghr',
  'github_pat',
  'glc',
  'glsa',
  'ops',
  'vcp',
  'vci',
  'vca',
  'vcr',
  'vck',
  'dckr_pat',
  'figd',
  'cfk',
  'cfut',
  'cfat',
]);
const beforeDash = endingBefore(['xoxb', 'xoxp', 'xoxa', 'xoxo', 'xoxr', 'xapp', 'glpat', 'tskey']);
const beforeDot = endingBefore(['SG', 'hvs', 'hvb', 'hvr']);
const keyNames = new Set(['KEY', 'key', 'Key']);
const space = /\s/;

/** The facts about one text that the gates read, each worked out once and only when asked. */
class Probe {
  private pieces: Set<string> | undefined;
  private schemeAt: number[] | undefined;

  readonly source: GateSource;
  constructor(source: GateSource) {
    this.source = source;
  }

  get text(): string {
    return this.source.content;
  }

  has(piece: string): boolean {
    return this.text.includes(piece);
  }

  /**
   * A piece found: `npm_` (any piece of `beforeUnderscore`, `beforeDash` or `beforeDot` with the character
   * after it), `sk-ant-api0`, `:x-oauth-basic@github`, `_authToken=`, or `key=` for a `KEY`, `key` or `Key`
   * followed by an optional quote, blanks and `:` or `=`.
   */
  found(piece: string): boolean {
    this.pieces ??= this.scan();
    return this.pieces.has(piece);
  }

  private scan(): Set<string> {
    const { text } = this;
    const pieces = new Set<string>();
    const each = (char: string, visit: (at: number) => void) => {
      for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) visit(at);
    };
    const ending = (map: ReadonlyMap<string, readonly string[]>, char: string) => (at: number) => {
      if (at < 2) return;
      for (const piece of map.get(text.slice(at - 2, at)) ?? [])
        if (at >= piece.length && text.startsWith(piece, at - piece.length)) pieces.add(piece + char);
    };
    const underscore = ending(beforeUnderscore, '_');
    each('_', (at) => {
      underscore(at);
      if (text.startsWith('_authToken=', at)) pieces.add('_authToken=');
    });
    const dash = ending(beforeDash, '-');
    each('-', (at) => {
      dash(at);
      if (at >= 2 && text.startsWith('sk-ant-api0', at - 2)) pieces.add('sk-ant-api0');
      if (at >= 2 && text.startsWith(':x-oauth-basic@github', at - 2)) pieces.add(':x-oauth-basic@github');
    });
    each('.', ending(beforeDot, '.'));
    const assignment = (at: number) => {
      let end = at;
      while (end > 0 && space.test(text[end - 1]!)) end -= 1;
      if (text[end - 1] === '"' || text[end - 1] === "'") end -= 1;
      if (end >= 3 && keyNames.has(text.slice(end - 3, end))) pieces.add('key=');
    };
    each(':', assignment);
    each('=', assignment);
    return pieces;
  }

  /** Offsets of every `://`. */
  private schemes(): number[] {
    if (this.schemeAt === undefined) {
      this.schemeAt = [];
      for (let at = this.text.indexOf('://'); at !== -1; at = this.text.indexOf('://', at + 3)) this.schemeAt.push(at);
    }
    return this.schemeAt;
  }

  /** Some `://` is followed right away by `sticky` (a regular expression with the y flag). */
  afterScheme(sticky: RegExp): boolean {
    return this.schemes().some((at) => {
      sticky.lastIndex = at + 3;
      return sticky.test(this.text);
    });
  }

  /** Some `://` comes right after what `atEnd` (anchored with `$`) matches in the `span` characters before it. */
  beforeScheme(atEnd: RegExp, span: number): boolean {
    return this.schemes().some((at) => atEnd.test(this.text.slice(Math.max(0, at - span), at)));
  }
}

type Gate = (probe: Probe) => boolean;

const awsSecretName = /(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)/;
const credentialUser = /[-a-zA-Z0-9_]{1,256}:[-a-zA-Z0-9_]{1,256}@/y;
const slackWebhook = /hooks\.slack\.com\/services\//iy;
const databaseScheme = /(?:mongodb(?:\+srv)?|mysqlx?|postgres(?:ql)?)$/i;
const any = (p: Probe, ...pieces: string[]): boolean => pieces.some((piece) => p.found(piece));

const gates: Readonly<Record<string, Gate>> = {
  // `${QUOTE}${AWS}(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)${QUOTE}${CONNECT}…` where
  // CONNECT is `\s*(?::|=>|=)`; the key id and account id patterns run only with enableIDScanRule, which the
  // connector does not set.
  '@secretlint/secretlint-rule-aws': (p) => p.found('key=') && awsSecretName.test(p.text),
  // Looks only at files whose `source.ext` is `.json` or `.p12`; the connector passes no ext.
  '@secretlint/secretlint-rule-gcp': (p) => p.source.ext === '.json' || p.source.ext === '.p12',
  // /(?<!\p{L})npm_[A-Za-z0-9_]{36}…/; in package files /https?:\/\/(.{1,256}):x-oauth-basic@github.com\//;
  // in .npmrc /_authToken=([^$].*)/.
  '@secretlint/secretlint-rule-npm': (p) => any(p, 'npm_', '_authToken=', ':x-oauth-basic@github'),
  // /\b(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-…/ and /https:\/\/hooks\.slack\.com\/services\/T…/gi.
  '@secretlint/secretlint-rule-slack': (p) =>
    any(p, 'xoxb-', 'xoxp-', 'xapp-', 'xoxa-', 'xoxo-', 'xoxr-') || p.afterScheme(slackWebhook),
  // /(?<protocol>(?:https?|ftp|ftps)):\/\/(?<user>[-a-zA-Z0-9_]{1,256}):(?<password>[-a-zA-Z0-9_]{1,256})@…/.
  '@secretlint/secretlint-rule-basicauth': (p) => p.afterScheme(credentialUser),
  // /sk-(?:proj|svcacct|admin)-…T3BlbkFJ…|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}/: both hold T3BlbkFJ.
  '@secretlint/secretlint-rule-openai': (p) => p.has('T3BlbkFJ'),
  // /(?<!\p{L})sk-ant-api0\d-…/u
  '@secretlint/secretlint-rule-anthropic': (p) => p.found('sk-ant-api0'),
  // /(?<!\p{L})gsk_[a-zA-Z0-9]{52}…/u
  '@secretlint/secretlint-rule-groq': (p) => p.found('gsk_'),
  // /(?<!\p{L})hf_[a-zA-Z]{34}…/u
  '@secretlint/secretlint-rule-huggingface': (p) => p.found('hf_'),
  // /(?<!\p{L})lin_api_[a-zA-Z0-9_]{32,128}…/u
  '@secretlint/secretlint-rule-linear': (p) => p.found('lin_api_'),
  // /(?<!\p{L})ntn_[0-9]{11}[A-Za-z0-9]{35}…/u
  '@secretlint/secretlint-rule-notion': (p) => p.found('ntn_'),
  // /-----BEGIN[ ]?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY(?: BLOCK)?-----…/gm
  '@secretlint/secretlint-rule-privatekey': (p) => p.has('PRIVATE KEY'),
  // /(?<!\p{L})SG\.\w{1,128}\.\w{1,128}([-_]?)\w{1,128}(?!\w)/gu
  '@secretlint/secretlint-rule-sendgrid': (p) => p.found('SG.'),
  // /(?<!\p{L})(shppa|shpca|shpat|shpss)_…/u
  '@secretlint/secretlint-rule-shopify': (p) => any(p, 'shppa_', 'shpca_', 'shpat_', 'shpss_'),
  // /(?<!\p{L})(?<prefix>sk_live|sk_test|rk_live|rk_test)_…/u
  '@secretlint/secretlint-rule-stripe': (p) => any(p, 'sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'),
  // /(?<!\p{L})(?<type>ghp|gho|ghu|ghs|ghr)_…/u, /(?<!\p{L})(?<type>github_pat)_…/u, /(?<!\p{L})(?<type>ghs)_[0-9]{1,20}_…/u
  '@secretlint/secretlint-rule-github': (p) => any(p, 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'),
  // /(?<!\p{L})glpat-[A-Za-z0-9_-]{20,128}…/u
  '@secretlint/secretlint-rule-gitlab': (p) => p.found('glpat-'),
  // /(?<!\p{L})glc_[A-Za-z0-9+/]{32,400}…/u and /(?<!\p{L})glsa_[A-Za-z0-9]{32}_…/u
  '@secretlint/secretlint-rule-grafana': (p) => any(p, 'glc_', 'glsa_'),
  // /(?<!\p{L})ops_(ey[A-Za-z0-9+/=]{100,1280}fQ={0,2})…/u
  '@secretlint/secretlint-rule-1password': (p) => p.found('ops_'),
  // /mongodb(?:\+srv)?:\/\/…/gi, /(?:jdbc:)?mysql(?:x)?:\/\/…/gi, /postgres(?:ql)?:\/\/…/gi
  '@secretlint/secretlint-rule-database-connection-string': (p) => p.beforeScheme(databaseScheme, 11),
  // /(?<!\p{L})hvs\.…/u, /(?<!\p{L})hvb\.…/u, /(?<!\p{L})hvr\.…/u
  '@secretlint/secretlint-rule-hashicorp-vault': (p) => any(p, 'hvs.', 'hvb.', 'hvr.'),
  // /(?<!\p{L})(?<prefix>vcp|vci|vca|vcr|vck)_…/u
  '@secretlint/secretlint-rule-vercel': (p) => any(p, 'vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'),
  // /(?<!\p{L})dapi[A-Fa-f0-9]{32}…/u
  '@secretlint/secretlint-rule-databricks': (p) => p.has('dapi'),
  // /(?<!\p{L})dckr_pat_[a-zA-Z0-9_-]{27}…/u
  '@secretlint/secretlint-rule-docker': (p) => p.found('dckr_pat_'),
  // /(?<!\p{L})figd_[A-Za-z0-9_-]{40,200}…/u
  '@secretlint/secretlint-rule-figma': (p) => p.found('figd_'),
  // /(?<!\p{L})(?<prefix>cfk|cfut|cfat)_…/u
  '@secretlint/secretlint-rule-cloudflare': (p) => any(p, 'cfk_', 'cfut_', 'cfat_'),
  // /(?<!\p{L})tskey-(?<type>[a-z]{2,20})-…/u
  '@secretlint/secretlint-rule-tailscale': (p) => p.found('tskey-'),
};

/** The rule ids the table knows (the rest always run). */
export const gatedRuleIds: readonly string[] = Object.keys(gates);

/**
 * The rules of `rules`, in their order, that can report anything in `source`: those whose gate holds, and
 * every rule the table does not know.
 */
export function rulesFor<R extends Readonly<{ id: string }>>(rules: readonly R[], source: GateSource): R[] {
  const probe = new Probe(source);
  return rules.filter((rule) => gates[rule.id]?.(probe) ?? true);
}
