// Where a phrase stands in a Markdown instruction file (quoted or cited phrases, phrases under a negation or a
// warning, code spans and examples are not directives): fenced code blocks, HTML comments (hidden
// when rendered), inline code spans, quotations, cited blockquotes, and the sentence and clause a phrase opens.
// Pure text work; no Markdown library is needed for these few block and inline forms.

export type Region = Readonly<{ start: number; end: number }>;

export type MarkdownMap = Readonly<{
  text: string;
  /** Fenced code blocks, fence lines included (an unclosed fence runs to the end, as CommonMark says). */
  fences: readonly Region[];
  /** `<!-- … -->` outside fenced code. */
  comments: readonly Region[];
}>;

// Up to 3 spaces at the top level; a fence in a list item is indented by the item's content too (`1. ` then
// `   ```bash`, nested items deeper), so any indentation opens one (an indented code block starting with ``` is rare).
const fenceOpen = /^[ \t]*(`{3,}|~{3,})/;

function fencesOf(text: string): Region[] {
  const fences: Region[] = [];
  let open: { start: number; marker: string } | null = null;
  let at = 0;
  for (const line of text.split('\n')) {
    const end = at + line.length;
    const opening = fenceOpen.exec(line);
    const fence = opening?.[1];
    // A backtick fence's info string holds no backtick (CommonMark): it starts after the indentation and the fence.
    if (open === null && fence !== undefined && !(fence[0] === '`' && line.slice(opening![0].length).includes('`')))
      open = { start: at, marker: fence };
    else if (
      open !== null &&
      fence !== undefined &&
      fence[0] === open.marker[0] &&
      fence.length >= open.marker.length &&
      line.trim() === fence
    ) {
      fences.push({ start: open.start, end });
      open = null;
    }
    at = end + 1;
  }
  if (open !== null) fences.push({ start: open.start, end: text.length });
  return fences;
}

export const within = (regions: readonly Region[], offset: number): Region | null =>
  regions.find((r) => offset >= r.start && offset < r.end) ?? null;

export function mapMarkdown(text: string): MarkdownMap {
  const fences = fencesOf(text);
  const comments: Region[] = [];
  for (const match of text.matchAll(/<!--[\s\S]*?(?:-->|$)/g))
    if (within(fences, match.index) === null) comments.push({ start: match.index, end: match.index + match[0].length });
  return { text, fences, comments };
}

const onlyBlank = (text: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) if (text[i] !== ' ' && text[i] !== '\t' && text[i] !== '>') return false;
  return true;
};

/**
 * Where `text.search(/\n[ \t>]*\n(?![\s\S]*\n[ \t>]*\n)/)` finds the last blank line, read from the end
 * instead (that search retries the rest of the text at every blank line). A blank line is a newline whose next
 * newline follows only spaces, tabs and `>`; the search stops at the last one, or at the one before it when the
 * two share a newline (`\n\n\n`).
 */
export function lastBlankLine(text: string): number {
  let last = -1;
  for (let close = text.lastIndexOf('\n'); close > 0;) {
    const open = text.lastIndexOf('\n', close - 1);
    if (open === -1) break;
    if (onlyBlank(text, open + 1, close)) {
      last = open;
      break;
    }
    close = open;
  }
  if (last <= 0) return last;
  const before = text.lastIndexOf('\n', last - 1);
  return before !== -1 && onlyBlank(text, before + 1, last) ? before : last;
}

/** The paragraph around an offset: bounded by blank lines (and at most 1,500 characters either side). */
export function paragraphAt(text: string, offset: number): Region {
  const before = text.slice(Math.max(0, offset - 1500), offset);
  const blankBefore = lastBlankLine(before);
  const start = blankBefore === -1 ? Math.max(0, offset - 1500) : offset - before.length + blankBefore + 1;
  const after = text.slice(offset, offset + 1500);
  const blankAfter = after.search(/\n[ \t>]*\n/);
  return { start, end: blankAfter === -1 ? offset + after.length : offset + blankAfter };
}

const lineStartOf = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
const lineEndOf = (text: string, offset: number): number => {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
};

/** Inside an inline code span (`…`, ``…``) on its line. */
export function inCodeSpan(text: string, offset: number): boolean {
  const start = lineStartOf(text, offset);
  const line = text.slice(start, lineEndOf(text, offset));
  const runs = [...line.matchAll(/`+/g)];
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!;
    const close = runs.slice(i + 1).find((r) => r[0].length === open[0].length);
    if (close === undefined) continue;
    if (offset - start > open.index && offset - start < close.index) return true;
    i = runs.indexOf(close);
  }
  return false;
}

// An opening straight quote follows a space or an opening bracket; a closing one precedes a space or punctuation.
const opensSingle = (s: string, i: number) => /[\s([{:,;—–-]|^$/.test(s[i - 1] ?? '') && /\S/.test(s[i + 1] ?? '');
const closesSingle = (s: string, i: number) =>
  /\S/.test(s[i - 1] ?? '') && /[\s)\]}.,;:!?…—–-]|^$/.test(s[i + 1] ?? '');

/** Inside '…' (straight quotes, told from apostrophes by what surrounds them) within the paragraph. */
function inSingleQuotes(text: string, offset: number, length: number, paragraph: Region): boolean {
  for (let i = offset - 1; i >= Math.max(paragraph.start, offset - 300); i--) {
    if (text[i] !== "'") continue;
    if (!opensSingle(text, i)) {
      if (closesSingle(text, i)) return false;
      continue;
    }
    for (let j = offset + length; j < Math.min(paragraph.end, offset + length + 300); j++)
      if (text[j] === "'" && closesSingle(text, j)) return true;
    return false;
  }
  return false;
}

/** Inside a quotation ("…", '…', “…”, ‘…’, «…») that opens and closes within the paragraph. */
export function inQuotes(text: string, offset: number, length: number): boolean {
  const paragraph = paragraphAt(text, offset);
  const before = text.slice(paragraph.start, offset);
  const after = text.slice(offset + length, paragraph.end);
  if ((before.match(/"/g)?.length ?? 0) % 2 === 1 && after.includes('"')) return true;
  for (const [open, close] of [
    ['“', '”'],
    ['«', '»'],
    ['‘', '’'],
  ] as const) {
    const o = before.lastIndexOf(open);
    if (o !== -1 && !before.slice(o).includes(close === '’' ? '’ ' : close) && after.includes(close)) return true;
  }
  return inSingleQuotes(text, offset, length, paragraph);
}

const citeCue =
  /\b(?:e\.g\.|for example|for instance|such as|example|examples|attack|attacks|injection|injections|malicious|payload|phishing|adversarial|untrusted|looks like|reads like|like this|known|sample|quoted)\b|:\s*$/i;

/** A blockquote line that cites something (the line before the quote introduces it, or the quote says so). */
export function inCitedBlockquote(text: string, offset: number): boolean {
  const start = lineStartOf(text, offset);
  if (!/^ {0,3}>/.test(text.slice(start, offset + 1))) return false;
  const lines = text.slice(0, start).split('\n');
  lines.pop();
  // Consecutive blockquotes, blank lines between them, form one citation.
  let quote = text.slice(start, lineEndOf(text, offset));
  while (lines.length > 0 && (/^ {0,3}>/.test(lines.at(-1)!) || lines.at(-1)!.trim() === ''))
    quote = `${lines.pop()!}\n${quote}`;
  const intro = lines.at(-1) ?? '';
  // The line after the quote may say what it was ("(a classic injection string; flag it)").
  const next = text
    .slice(lineEndOf(text, offset))
    .split('\n')
    .find((line) => line.trim() !== '' && !/^ {0,3}>/.test(line));
  return (
    citeCue.test(intro) ||
    /\b(?:e\.g\.|for example|example|attack|injection)\b/i.test(quote) ||
    /\b(?:attack|injection|malicious|example|payload|phishing)\b/i.test(next ?? '')
  );
}

// Sentence ends: . ! ? ; before a space, a list item's marker, a heading or thematic-break line (frontmatter
// fences too), a table cell, a comment's edges.
const sentenceEnd =
  /[.!?;](?=\s)|(?:^|\n)[ \t]*(?:[-*+]|\d+[.)])[ \t]|(?:^|\n)[ \t]*(?:#{1,6}[ \t][^\n]*|-{3,}|\*{3,}|_{3,})[ \t]*(?=\n)|\||<!--|-->/g;

const tableCue =
  /\b(?:injections?|attacks?|examples?|patterns?|payloads?|red flags?|signals?|signs?|malicious|phrases?)\b/i;

/** A table row whose row or header row names what it lists (attacks, examples, patterns, payloads …). */
export function inCitedTable(text: string, offset: number): boolean {
  const start = lineStartOf(text, offset);
  if (!/^ {0,3}\|/.test(text.slice(start, offset + 1))) return false;
  const lines = text.slice(0, start).split('\n');
  lines.pop();
  let header = '';
  while (lines.length > 0 && /^ {0,3}\|/.test(lines.at(-1)!)) header = lines.pop()!;
  return tableCue.test(header) || tableCue.test(text.slice(start, lineEndOf(text, offset)));
}

/**
 * The text of the sentence before `offset`: from the last sentence end (. ! ? ; followed by a space, not in
 * e.g./i.e./etc.), list item, heading, table cell or paragraph start.
 */
export function sentenceBefore(text: string, offset: number): string {
  const { start } = paragraphAt(text, offset);
  const before = text.slice(start, offset);
  let cut = 0;
  for (const match of before.matchAll(sentenceEnd)) {
    const tail = before.slice(Math.max(0, match.index - 4), match.index + 1);
    if (/(?:\be\.g|\bi\.e|\betc|\bvs)\.$/i.test(tail)) continue;
    cut = match.index + match[0].length;
  }
  return before.slice(cut);
}

/** The sentence after `offset` up to its end (same rules, and a fenced block's opening), for cues that follow a phrase. */
export function sentenceAfter(text: string, offset: number): string {
  const { end } = paragraphAt(text, offset);
  const after = text.slice(offset, end);
  const stop = after.search(/[.!?;](?=\s|$)|\n\s*(?:[-*+]|\d+[.)]|#{1,6})\s|\n[ \t]*(?:`{3,}|~{3,})/);
  return stop === -1 ? after : after.slice(0, stop);
}

/** The clause before `offset`: the sentence before it, cut at the last comma, colon, "and", "then" or "but". */
export function clauseBefore(text: string, offset: number): string {
  const sentence = sentenceBefore(text, offset);
  const cut = [...sentence.matchAll(/[,:]\s|\s(?:and|then|but|or)\s/gi)].at(-1);
  return cut === undefined ? sentence : sentence.slice(cut.index + cut[0].length);
}
