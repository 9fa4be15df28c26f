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

/** The facts about one text that several gates share, each worked out once and only when asked. */
class Probe {
  private underscore: boolean | undefined;
  private schemeAt: number[] | undefined;

  constructor(readonly source: GateSource) {}

  get text(): string {
    return this.source.content;
  }

  has(piece: string): boolean {
    return this.text.includes(piece);
  }

  /** A piece that holds `_`: most prose has none, and that one search rules out every such piece at once. */
  underscored(piece: string): boolean {
    return this.anyUnderscore() && this.has(piece);
  }

  anyUnderscore(): boolean {
    return (this.underscore ??= this.text.includes('_'));
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

const gates: Readonly<Record<string, Gate>> = {
  // `${QUOTE}${AWS}(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)${QUOTE}${CONNECT}…`; the
  // key id and account id patterns run only with enableIDScanRule, which the connector does not set.
  '@secretlint/secretlint-rule-aws': (p) => (p.has('ccess') || p.has('CCESS')) && awsSecretName.test(p.text),
  // Looks only at files whose `source.ext` is `.json` or `.p12`; the connector passes no ext.
  '@secretlint/secretlint-rule-gcp': (p) => p.source.ext === '.json' || p.source.ext === '.p12',
  // /(?<!\p{L})npm_[A-Za-z0-9_]{36}…/; in package files /https?:\/\/(.{1,256}):x-oauth-basic@github.com\//;
  // in .npmrc /_authToken=([^$].*)/.
  '@secretlint/secretlint-rule-npm': (p) =>
    p.underscored('npm_') || p.underscored('_authToken=') || p.has(':x-oauth-basic@github'),
  // /\b(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-…/ and /https:\/\/hooks\.slack\.com\/services\/T…/gi.
  '@secretlint/secretlint-rule-slack': (p) => p.has('xox') || p.has('xapp-') || p.afterScheme(slackWebhook),
  // /(?<protocol>(?:https?|ftp|ftps)):\/\/(?<user>[-a-zA-Z0-9_]{1,256}):(?<password>[-a-zA-Z0-9_]{1,256})@…/.
  '@secretlint/secretlint-rule-basicauth': (p) => p.afterScheme(credentialUser),
  // /sk-(?:proj|svcacct|admin)-…T3BlbkFJ…|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}/: both hold T3BlbkFJ.
  '@secretlint/secretlint-rule-openai': (p) => p.has('T3BlbkFJ'),
  // /(?<!\p{L})sk-ant-api0\d-…/u
  '@secretlint/secretlint-rule-anthropic': (p) => p.has('sk-ant-api0'),
  // /(?<!\p{L})gsk_[a-zA-Z0-9]{52}…/u
  '@secretlint/secretlint-rule-groq': (p) => p.underscored('gsk_'),
  // /(?<!\p{L})hf_[a-zA-Z]{34}…/u
  '@secretlint/secretlint-rule-huggingface': (p) => p.underscored('hf_'),
  // /(?<!\p{L})lin_api_[a-zA-Z0-9_]{32,128}…/u
  '@secretlint/secretlint-rule-linear': (p) => p.underscored('lin_api_'),
  // /(?<!\p{L})ntn_[0-9]{11}[A-Za-z0-9]{35}…/u
  '@secretlint/secretlint-rule-notion': (p) => p.underscored('ntn_'),
  // /-----BEGIN[ ]?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY(?: BLOCK)?-----…/gm
  '@secretlint/secretlint-rule-privatekey': (p) => p.has('PRIVATE KEY'),
  // /(?<!\p{L})SG\.\w{1,128}\.\w{1,128}([-_]?)\w{1,128}(?!\w)/gu
  '@secretlint/secretlint-rule-sendgrid': (p) => p.has('SG.'),
  // /(?<!\p{L})(shppa|shpca|shpat|shpss)_…/u
  '@secretlint/secretlint-rule-shopify': (p) => p.anyUnderscore() && p.has('shp'),
  // /(?<!\p{L})(?<prefix>sk_live|sk_test|rk_live|rk_test)_…/u
  '@secretlint/secretlint-rule-stripe': (p) => p.underscored('k_live_') || p.underscored('k_test_'),
  // /(?<!\p{L})(?<type>ghp|gho|ghu|ghs|ghr)_…/u, /(?<!\p{L})(?<type>github_pat)_…/u, /(?<!\p{L})(?<type>ghs)_[0-9]{1,20}_…/u
  '@secretlint/secretlint-rule-github': (p) => p.anyUnderscore() && /gh[pousr]_|github_pat_/.test(p.text),
  // /(?<!\p{L})glpat-[A-Za-z0-9_-]{20,128}…/u
  '@secretlint/secretlint-rule-gitlab': (p) => p.has('glpat-'),
  // /(?<!\p{L})glc_[A-Za-z0-9+/]{32,400}…/u and /(?<!\p{L})glsa_[A-Za-z0-9]{32}_…/u
  '@secretlint/secretlint-rule-grafana': (p) => p.underscored('glc_') || p.underscored('glsa_'),
  // /(?<!\p{L})ops_(ey[A-Za-z0-9+/=]{100,1280}fQ={0,2})…/u
  '@secretlint/secretlint-rule-1password': (p) => p.underscored('ops_ey'),
  // /mongodb(?:\+srv)?:\/\/…/gi, /(?:jdbc:)?mysql(?:x)?:\/\/…/gi, /postgres(?:ql)?:\/\/…/gi
  '@secretlint/secretlint-rule-database-connection-string': (p) => p.beforeScheme(databaseScheme, 11),
  // /(?<!\p{L})hvs\.…/u, /(?<!\p{L})hvb\.…/u, /(?<!\p{L})hvr\.…/u
  '@secretlint/secretlint-rule-hashicorp-vault': (p) => p.has('hvs.') || p.has('hvb.') || p.has('hvr.'),
  // /(?<!\p{L})(?<prefix>vcp|vci|vca|vcr|vck)_…/u
  '@secretlint/secretlint-rule-vercel': (p) => p.anyUnderscore() && /vc[picrk]_/.test(p.text),
  // /(?<!\p{L})dapi[A-Fa-f0-9]{32}…/u
  '@secretlint/secretlint-rule-databricks': (p) => p.has('dapi'),
  // /(?<!\p{L})dckr_pat_[a-zA-Z0-9_-]{27}…/u
  '@secretlint/secretlint-rule-docker': (p) => p.underscored('dckr_pat_'),
  // /(?<!\p{L})figd_[A-Za-z0-9_-]{40,200}…/u
  '@secretlint/secretlint-rule-figma': (p) => p.underscored('figd_'),
  // /(?<!\p{L})(?<prefix>cfk|cfut|cfat)_…/u
  '@secretlint/secretlint-rule-cloudflare': (p) => p.anyUnderscore() && /cf(?:k|ut|at)_/.test(p.text),
  // /(?<!\p{L})tskey-(?<type>[a-z]{2,20})-…/u
  '@secretlint/secretlint-rule-tailscale': (p) => p.has('tskey-'),
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
