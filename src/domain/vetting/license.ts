// The license report (docs/marketplaces.md, Reads of a snapshot) and the evaluation of SPDX ids against the configured
// allow and ban lists. Pure: identifying a LICENSE text and parsing expressions happen in the adapter.

export const licenseEvaluations = ['OK', 'BANNED', 'NOT_ALLOWED', 'UNKNOWN'] as const;
export type LicenseEvaluation = (typeof licenseEvaluations)[number];

export type LicenseEntry = Readonly<{
  /** null is the unknown-license state. */
  spdxId: string | null;
  source: 'file' | 'manifest';
  location: string;
  /** The manifest's `license` string as written; null for a LICENSE file. */
  declared: string | null;
  evaluation: LicenseEvaluation;
}>;

/** The license report body without snapshotId and sha. Empty licenses: no license information at all. */
export type LicenseReport = { licenses: LicenseEntry[]; allowed: string[]; banned: string[] };

export type LicenseLists = Readonly<{ allow: readonly string[]; ban: readonly string[] }>;

/** A parsed SPDX expression, in the shape spdx-expression-parse returns. */
export type LicenseExpression =
  | Readonly<{ license: string; plus?: boolean; exception?: string }>
  | Readonly<{ left: LicenseExpression; conjunction: 'and' | 'or'; right: LicenseExpression }>;

/**
 * The ids that name the same license as `id`, for matching against the lists: the deprecated GNU ids
 * (`GPL-3.0`, `GPL-3.0+`) and their current forms (`GPL-3.0-only`, `GPL-3.0-or-later`) match each other,
 * so an admin may write either.
 */
export function aliasesOf(id: string): string[] {
  const gnu = /^((?:A|L)?GPL|GFDL)-(\d\.\d)(\+|-only|-or-later)?$/i.exec(id);
  if (gnu === null) return [id];
  const base = `${gnu[1]}-${gnu[2]}`;
  const later = gnu[3] === '+' || gnu[3]?.toLowerCase() === '-or-later';
  return later ? [`${base}-or-later`, `${base}+`] : [`${base}-only`, base];
}

const isCustomRef = (id: string): boolean => /^(DocumentRef-[^:]+:)?LicenseRef-/i.test(id);

/**
 * Evaluates a license known by `ids` (the id and every id naming the same text or license; the first is
 * the reported one). Order: unknown (null) → UNKNOWN whatever the lists say (the unknown-license
 * state, which only warns); banned → BANNED; a non-empty allow list without it → NOT_ALLOWED; a custom
 * `LicenseRef-` nobody listed → UNKNOWN (the gateway cannot know its terms); else OK. SPDX ids are
 * case-insensitive, so is the comparison.
 */
export function evaluateLicense(ids: readonly string[] | null, lists: LicenseLists): LicenseEvaluation {
  if (ids === null || ids.length === 0) return 'UNKNOWN';
  const names = new Set(ids.flatMap(aliasesOf).map((id) => id.toLowerCase()));
  const listed = (list: readonly string[]) =>
    list.some((entry) => aliasesOf(entry.trim()).some((alias) => names.has(alias.toLowerCase())));
  if (listed(lists.ban)) return 'BANNED';
  if (lists.allow.length > 0) return listed(lists.allow) ? 'OK' : 'NOT_ALLOWED';
  return ids.some(isCustomRef) ? 'UNKNOWN' : 'OK';
}

// Best first: an OR expression is as good as its best alternative.
const rank: Record<LicenseEvaluation, number> = { OK: 0, UNKNOWN: 1, NOT_ALLOWED: 2, BANNED: 3 };

/**
 * The one id a manifest expression is reported under, and its evaluation. `A OR B` lets the user pick,
 * so the alternative that passes best stands for it; `A AND B` binds to both, so the worst one does
 * (ties: the leftmost). A `WITH` exception only adds permissions: the license id is what is evaluated.
 */
export function evaluateExpression(
  expression: LicenseExpression,
  lists: LicenseLists,
): Readonly<{ spdxId: string; evaluation: LicenseEvaluation }> {
  if ('license' in expression) {
    const spdxId = expression.plus === true ? `${expression.license}+` : expression.license;
    return { spdxId, evaluation: evaluateLicense([spdxId], lists) };
  }
  const left = evaluateExpression(expression.left, lists);
  const right = evaluateExpression(expression.right, lists);
  const rightWins =
    expression.conjunction === 'or'
      ? rank[right.evaluation] < rank[left.evaluation]
      : rank[right.evaluation] > rank[left.evaluation];
  return rightWins ? right : left;
}
