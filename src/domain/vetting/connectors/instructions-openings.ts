// Where the phrase rules of instruction files can match, found in one pass. Each rule's pattern starts at a word
// boundary with one of a few words (`ignore`, `do`, `you`, `reveal` …: the rule's `opens`), so a match can
// start only where one of those words starts. One scan over the text finds every such place; each rule's
// pattern is then tried there alone (sticky), in order, resuming after each match as matchAll does: the same
// matches as running every pattern over the whole text, which is what the connector's time went to.

/** A phrase rule as the matcher needs it: a global, case-insensitive pattern and the words a match opens with. */
export type Opening = Readonly<{ pattern: RegExp; opens: readonly string[] }>;

export type OpeningMatch = Readonly<{ index: number; 0: string }>;

/** Matches of each rule, in rule order, as `text.matchAll(rule.pattern)` gives them. */
export type OpeningsMatcher = (text: string) => ReadonlyArray<readonly OpeningMatch[]>;

/**
 * A matcher for `rules`. Every pattern must be global and case-insensitive without the `u` flag (so a letter
 * of the text matches only its ASCII cases) and open with `\b` and one of `opens`.
 */
export function openingsMatcher(rules: readonly Opening[]): OpeningsMatcher {
  const words = [...new Set(rules.flatMap((rule) => rule.opens))].sort((a, b) => b.length - a.length);
  for (const rule of rules)
    if (!/^(?=.*g)(?=.*i)(?!.*[uvy])/.test(rule.pattern.flags) || !rule.pattern.source.startsWith('\\b'))
      throw new Error(`an opening rule must be /…/gi and open with \\b: ${rule.pattern.source.slice(0, 40)}`);
  // Not overlapping: after a word, the next place a word can start at a boundary is past its letters.
  const anyOpening = new RegExp(`\\b(?:${words.join('|')})`, 'gi');
  const sticky = rules.map((rule) => new RegExp(rule.pattern.source, `${rule.pattern.flags.replace('g', '')}y`));
  // The rules to try at a place, by the letter it starts with.
  const byInitial = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    for (const initial of new Set(rule.opens.map((word) => word[0]!.toLowerCase())))
      byInitial.set(initial, [...(byInitial.get(initial) ?? []), index]);
  });
  return (text) => {
    const found: OpeningMatch[][] = rules.map(() => []);
    const resumeAt = rules.map(() => 0);
    for (const opening of text.matchAll(anyOpening)) {
      const at = opening.index;
      for (const index of byInitial.get(text[at]!.toLowerCase()) ?? []) {
        if (at < resumeAt[index]!) continue;
        const pattern = sticky[index]!;
        pattern.lastIndex = at;
        const match = pattern.exec(text);
        if (match === null) continue;
        found[index]!.push({ index: at, 0: match[0] });
        resumeAt[index] = at + Math.max(1, match[0].length);
      }
    }
    return found;
  };
}
