// Curation (docs/marketplaces.md, Selection): an admin chooses which plugins of an upstream marketplace the gateway
// serves. A pattern is a plugin-name glob matched against the whole name, case-sensitively: `*` is any run of
// characters (none included), `?` exactly one, everything else itself. An empty include means every plugin; exclude
// applies after include. No selection at all (null) serves every plugin.

export type PluginSelection = Readonly<{ include: readonly string[]; exclude: readonly string[] }>;

export type LeftOut = Readonly<{ plugin: string; reason: string }>;
export type Selected = { selected: string[]; leftOut: LeftOut[] };

export const selectionLimits = {
  /** Per list: the official directory has 286 plugins, so naming every one of them fits. */
  maxPatterns: 500,
  maxPatternLength: 128,
} as const;

// Shell and gitignore syntax a reader may expect to work; refused rather than matched literally, so that
// `[ab]*` or `{a,b}` never silently selects nothing. `!x` belongs in exclude.
const reservedCharacters = /[[\]{}\\]/;
const controlCharacters = /[\u0000-\u001f\u007f]/;

const quoted = (value: string): string => `'${value}'`;

/** Why one pattern is refused, or null when it is usable. */
function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'is empty';
  if (pattern.length > selectionLimits.maxPatternLength)
    return `is longer than ${selectionLimits.maxPatternLength} characters`;
  if (controlCharacters.test(pattern)) return 'contains a control character';
  if (pattern.trim() !== pattern) return 'begins or ends with white space';
  if (pattern.startsWith('!')) return "begins with '!': list the plugins to leave out under exclude";
  if (reservedCharacters.test(pattern))
    return "uses [ ] { } or \\, which are not pattern syntax here: only '*' (any characters) and '?' (one character) are";
  return null;
}

const describe = (pattern: string): string =>
  pattern.length > 40 ? quoted(`${pattern.slice(0, 40)}…`) : quoted(pattern);

function listProblems(list: readonly string[], field: 'include' | 'exclude'): string[] {
  if (list.length > selectionLimits.maxPatterns)
    return [`${field} has ${list.length} patterns; at most ${selectionLimits.maxPatterns} are allowed`];
  return list.flatMap((pattern, index) => {
    const problem = patternProblem(pattern);
    return problem === null ? [] : [`${field}[${index}] ${describe(pattern)} ${problem}`];
  });
}

const unique = (list: readonly string[]): string[] => [...new Set(list)];

export type SelectionCheck =
  Readonly<{ ok: true; selection: PluginSelection | null }> | Readonly<{ ok: false; problems: readonly string[] }>;

/**
 * Validates the patterns of a requested selection and normalises it: duplicates dropped (first kept, order
 * otherwise as sent); both lists empty or absent is no selection (null), i.e. every plugin is served.
 */
export function checkSelection(include: readonly string[] = [], exclude: readonly string[] = []): SelectionCheck {
  const problems = [...listProblems(include, 'include'), ...listProblems(exclude, 'exclude')];
  if (problems.length > 0) return { ok: false, problems };
  if (include.length === 0 && exclude.length === 0) return { ok: true, selection: null };
  return { ok: true, selection: { include: unique(include), exclude: unique(exclude) } };
}

/**
 * Whether `name` matches the glob `pattern` as a whole. Iterative, backtracking only to the last `*`, so a
 * pattern of many stars costs O(pattern × name), never the exponential time a translated regex can take.
 */
export function matchesPattern(pattern: string, name: string): boolean {
  const p = Array.from(pattern);
  const n = Array.from(name);
  let pi = 0;
  let ni = 0;
  let star = -1;
  let resume = 0;
  while (ni < n.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === n[ni]))) {
      pi += 1;
      ni += 1;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi;
      resume = ni;
      pi += 1;
    } else if (star >= 0) {
      pi = star + 1;
      resume += 1;
      ni = resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi += 1;
  return pi === p.length;
}

const shownPatterns = 5;
const listed = (patterns: readonly string[]): string => {
  const shown = patterns.slice(0, shownPatterns).map(describe).join(', ');
  const more = patterns.length - shownPatterns;
  return more > 0 ? `[${shown}, … ${more} more]` : `[${shown}]`;
};

/** Why the selection leaves `name` out, or null when it is selected. */
export function leftOutBecause(name: string, selection: PluginSelection | null): string | null {
  if (selection === null) return null;
  const { include, exclude } = selection;
  if (include.length > 0 && !include.some((pattern) => matchesPattern(pattern, name)))
    return `not matched by include ${listed(include)}`;
  const excludedBy = exclude.find((pattern) => matchesPattern(pattern, name));
  return excludedBy === undefined ? null : `excluded by ${describe(excludedBy)}`;
}

/**
 * Splits a marketplace's plugin names into those the selection serves (in the given order) and those it
 * leaves out, each with a reason a reviewer can read. A null selection selects every plugin.
 */
export function selectPlugins(names: readonly string[], selection: PluginSelection | null): Selected {
  const result: Selected = { selected: [], leftOut: [] };
  for (const plugin of names) {
    const reason = leftOutBecause(plugin, selection);
    if (reason === null) result.selected.push(plugin);
    else result.leftOut.push({ plugin, reason });
  }
  return result;
}

/**
 * The patterns that match none of `names`: most often a misspelt plugin name, which would otherwise show only
 * as one more plugin left out (include) or, worse, as a plugin served that was meant to be left out (exclude).
 */
export function unmatchedPatterns(
  names: readonly string[],
  selection: PluginSelection | null,
): { include: string[]; exclude: string[] } {
  const unused = (patterns: readonly string[]) =>
    patterns.filter((pattern) => !names.some((name) => matchesPattern(pattern, name)));
  return selection === null
    ? { include: [], exclude: [] }
    : { include: unused(selection.include), exclude: unused(selection.exclude) };
}

/** The same selection (lists compared in order, as stored): setting it again changes nothing. */
export const sameSelection = (a: PluginSelection | null, b: PluginSelection | null): boolean =>
  a === null || b === null
    ? a === b
    : a.include.length === b.include.length &&
      a.exclude.length === b.exclude.length &&
      a.include.every((p, i) => b.include[i] === p) &&
      a.exclude.every((p, i) => b.exclude[i] === p);
