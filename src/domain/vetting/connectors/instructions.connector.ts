// The instructions connector: skills, agents and commands are text the model obeys. It flags text the
// reviewer cannot see (bidirectional controls that reorder what is displayed, zero-width characters,
// Unicode tag characters that spell invisible ASCII a model still reads) and text that tries to take the
// model away from its user (instructions-directives.ts, instructions-exfiltration.ts: judged in context, so a
// warning that quotes an injection is no injection). Only skill, agent and command Markdown is read.
import { lineIndex } from '../../plugin/json-document.ts';
import { layoutOf } from '../../plugin/layout.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner, type Severity } from '../../kernel/findings.ts';
import { injectionDirectives } from './instructions-directives.ts';
import { exfiltrationDirectives, hiddenCommentDirectives } from './instructions-exfiltration.ts';
import { mapMarkdown, type MarkdownMap } from './instructions-markdown.ts';

const id = 'instructions-hidden-unicode';

const names: Readonly<Record<number, string>> = {
  0x061c: 'ARABIC LETTER MARK',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0xe0001: 'LANGUAGE TAG',
  0xe0020: 'TAG SPACE',
  0xe007f: 'CANCEL TAG',
};
const digitNames = ['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'];

/** `U+202E RIGHT-TO-LEFT OVERRIDE`; tag characters are named after the ASCII they shadow. */
export function codePointName(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  let name = names[cp];
  if (name === undefined && cp >= 0xe0000 && cp <= 0xe007f) {
    const ascii = String.fromCharCode(cp - 0xe0000);
    name = /[A-Z]/.test(ascii)
      ? `TAG LATIN CAPITAL LETTER ${ascii}`
      : /[a-z]/.test(ascii)
        ? `TAG LATIN SMALL LETTER ${ascii.toUpperCase()}`
        : /\d/.test(ascii)
          ? `TAG DIGIT ${digitNames[Number(ascii)]!}`
          : 'TAG CHARACTER';
  }
  return `${hex} ${name ?? 'INVISIBLE CHARACTER'}`;
}

type Kind = Readonly<{ severity: Severity; what: string }>;
const bidi: Kind = {
  severity: 'HIGH',
  what: 'bidirectional control: the text displays in a different order than it is read',
};
const zeroWidth: Kind = { severity: 'HIGH', what: 'zero-width character: invisible in review' };
const tags: Kind = { severity: 'CRITICAL', what: 'Unicode tag characters: invisible text a model still reads' };

const hidden = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]+/gu;
const emojiSide = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F|\u20E3)$/u;
// Scripts where ZWJ and ZWNJ are ordinary spelling (Persian, Indic languages…).
const joiningScript =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}\p{M}]$/u;
// Right-to-left scripts, where the direction marks (LRM, RLM, ALM: they reorder no letters, only neutral
// characters such as digits and punctuation) are ordinary typography on the line.
const rtlLetter = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const lineAt = (text: string, at: number): string => {
  const end = text.indexOf('\n', at);
  return text.slice(text.lastIndexOf('\n', at) + 1, end === -1 ? text.length : end);
};
// Scripts written without spaces, where a zero-width space marks a word break.
const spacelessScript = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]$/u;
// An emoji subdivision flag (🏴 + lowercase tag letters/digits + CANCEL TAG) is the one honest use of tags.
const flagTags = /^[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{2,7}\u{e007f}$/u;

const charBefore = (text: string, at: number): string => {
  const low = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && at >= 2 ? text.slice(at - 2, at) : text.slice(at - 1, at);
};
const charAfter = (text: string, at: number): string => String.fromCodePoint(text.codePointAt(at) ?? 0x20);

function kindOf(text: string, match: string, at: number): Kind | null {
  const cp = match.codePointAt(0)!;
  if (cp >= 0xe0000) return charBefore(text, at) === '\u{1f3f4}' && flagTags.test(match) ? null : tags;
  if (cp === 0xfeff && at === 0) return null; // a byte-order mark
  const beside = (script: RegExp) => script.test(charBefore(text, at)) || script.test(charAfter(text, at + 1));
  if ((cp === 0x200e || cp === 0x200f || cp === 0x061c) && rtlLetter.test(lineAt(text, at))) return null;
  if (cp === 0x200b && beside(spacelessScript)) return null;
  if (cp === 0x200d || cp === 0x200c) {
    const before = charBefore(text, at);
    const after = charAfter(text, at + 1);
    if (cp === 0x200d && emojiSide.test(before) && emojiSide.test(after)) return null;
    if (joiningScript.test(before) && joiningScript.test(after)) return null;
  }
  return (cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || cp === 0xfeff ? zeroWidth : bidi;
}

function scanText(path: string, text: string, findings: Finding[]): void {
  let lineOf: ((offset: number) => number) | null = null;
  const line = (offset: number) => (lineOf ??= lineIndex(text))(offset);
  // One finding per line and kind, naming the code points: a run of tag characters is one finding.
  const perLine = new Map<string, { kind: Kind; line: number; count: number; points: Set<number> }>();
  for (const match of text.matchAll(hidden)) {
    const kind = kindOf(text, match[0], match.index);
    if (kind === null) continue;
    const at = line(match.index);
    const key = `${at}\u0000${kind.what}`;
    const entry = perLine.get(key) ?? { kind, line: at, count: 0, points: new Set<number>() };
    for (const char of match[0]) {
      entry.count++;
      entry.points.add(char.codePointAt(0)!);
    }
    perLine.set(key, entry);
  }
  for (const { kind, line: at, count, points } of perLine.values()) {
    const listed = [...points].slice(0, 3).map(codePointName).join(', ') + (points.size > 3 ? ', …' : '');
    findings.push({
      id,
      severity: kind.severity,
      location: locationOf(path, at),
      message: `${count > 1 ? `${count} hidden characters, ` : ''}${listed} (${kind.what})`,
    });
  }
  // Mapped only when some rule has something to judge: a phrase, a secret source, an HTML comment.
  let map: MarkdownMap | undefined;
  const mapOf = () => (map ??= mapMarkdown(text));
  const directives = [...injectionDirectives(text, mapOf), ...exfiltrationDirectives(text, mapOf)];
  const comments = text.includes('<!--') ? hiddenCommentDirectives(mapOf(), directives) : [];
  for (const directive of [...directives, ...comments])
    findings.push({
      id: directive.id,
      severity: directive.severity,
      location: locationOf(path, line(directive.offset)),
      message: directive.message,
    });
}

const byLocation = (a: Finding, b: Finding): number => {
  const [pa, la] = [a.location.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(a.location)?.[1])];
  const [pb, lb] = [b.location.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(b.location)?.[1])];
  return pa < pb ? -1 : pa > pb ? 1 : la - lb;
};

const scan: PureScanner = (input) => {
  const layout = layoutOf(input);
  const paths = new Set<string>();
  for (const plugin of layout.plugins) {
    // A skill is its whole directory: SKILL.md and the Markdown references it loads.
    for (const skill of plugin.skills)
      for (const path of layout.under(skill.dir)) if (path.endsWith('.md')) paths.add(path);
    for (const { path } of [...plugin.agents, ...plugin.commands]) paths.add(path);
  }
  const findings: Finding[] = [];
  for (const path of paths) {
    const file = input.byPath.get(path);
    if (file?.oversized) findings.push(fileNotScanned(file, input.maxFileBytes));
    else if (file?.text != null) scanText(path, file.text, findings);
  }
  return {
    findings: findings.sort(byLocation),
    detail: `${paths.size} instruction file${paths.size === 1 ? '' : 's'} examined`,
  };
};

export const instructionsConnector: Readonly<{ name: 'instructions'; description: string; scan: PureScanner }> = {
  name: 'instructions',
  description:
    'Skills, agents and commands: hidden Unicode (bidirectional controls, zero-width and tag characters), and directives judged in context that override the user, exfiltrate credentials or hide in HTML comments',
  scan,
};
