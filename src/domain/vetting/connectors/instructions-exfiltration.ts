// Two hidden-directive shapes of instruction files (hidden directives to exfiltrate, HTML comments with
// instructions): a command to send local credentials somewhere (instructions-exfiltration,
// CRITICAL), in prose or in a command the text tells the model to run, and an HTML comment (invisible once
// rendered) that gives the model an instruction touching credentials, the network, the shell or the user's
// oversight (instructions-hidden-comment, HIGH).
import { phrase, notADirective, type Directive } from './instructions-directives.ts';
import { commandSentence, leftover } from './instructions-grammar.ts';
import { sentenceAfter, sentenceBefore, within, type MarkdownMap } from './instructions-markdown.ts';

// Local secrets worth stealing: key and credential files, and the whole environment.
const secretSource =
  /~\/\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|config\/gh)\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials\b|(?:^|[\s`'"(])\.env\b(?!\.(?:example|sample|template))|\bkeychain\b|\b(?:ssh|private)\s+keys?\b|\b(?:all|every|the)\s+environment\s+variables\b|\bbrowser\s+cookies\b|\b(?:printenv|env)\s*\|/gi;

const fileExtensions =
  'json|ya?ml|md|mdx|txt|env|js|mjs|cjs|ts|tsx|py|sh|toml|ini|cfg|conf|lock|example|sample|local|log|csv|xml|html|pem|key|pub|rs|go|rb|java';
// A URL on this machine (a dev server, a local collector): sending to it sends nothing off the machine.
const localUrl = String.raw`(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1\]|host\.docker\.internal)(?=[:/?#'"\s\`)]|$)`;
// Somewhere outside the machine: a remote URL, a host, an e-mail address, a webhook, or the model's own output.
const destination = new RegExp(
  `https?://(?!${localUrl})|\\b(?:to|at|on|into)\\s+(?![\\w-]+\\.(?:${fileExtensions})\\b)[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.[a-z]{2,}\\b|\\b[\\w.+-]+@[\\w-]+\\.[a-z]{2,}\\b|\\bwebhook\\b|\\bpastebin\\b|\\bgist\\b|\\b(?:remote|external|third[- ]party|attacker'?s?)\\s+(?:server|host|endpoint|url|address)|\\bin\\s+(?:the|your)\\s+(?:commit\\s+message|response|reply|answer|output|summary|pull\\s+request|PR\\s+description|issue|comment)s?\\b`,
  'i',
);
// `http`/`https` as a command (HTTPie), not as a URL's scheme.
const networkTool = /\b(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|ftp|Invoke-WebRequest|iwr)\b|\bhttps?\b(?!:\/\/)/i;
// The file is written, not read: a shell redirection or tee into it (`> .env`, `cat >> .env <<EOF`, `| tee .env`).
const writtenTo = /(?:>>?|\btee(?:\s+-a)?)\s*["']?$/;
const fenceIntroCue =
  /\b(?:e\.g\.|for example|for instance|such as|example|attack|attacks|malicious|payload|never|not|don't|do not|avoid|detect|flag|block|blocks|blocked|deny|denies|refuse)\b/i;

/** The line around an offset. */
const lineAround = (text: string, offset: number): string => {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? text.length : end);
};

/** The prose line introducing a fenced block (the nearest non-blank line above its opening fence). */
function fenceIntro(text: string, fenceStart: number): string {
  const lines = text.slice(0, fenceStart).split('\n');
  lines.pop();
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  return lines.at(-1) ?? '';
}

function inCommand(map: MarkdownMap, offset: number): string | null {
  const fence = within(map.fences, offset);
  const line = lineAround(map.text, offset);
  if (!networkTool.test(line)) return null;
  if (fence !== null) return fenceIntroCue.test(fenceIntro(map.text, fence.start)) ? null : line.trim();
  return /`[^`]*$/.test(map.text.slice(map.text.lastIndexOf('\n', offset - 1) + 1, offset)) ? line.trim() : null;
}

// What every secretSource match holds, in lower case (the pattern is case-insensitive, ASCII letters only):
// `~/.`, `id_`, `.aws/`, `env` (`.env`, `environment`, `printenv`), `key` (`keychain`, `ssh keys`), `cookie`.
const secretSourcePieces = ['~/.', 'id_', '.aws/', 'env', 'key', 'cookie'];
const maySourceSecrets = (text: string): boolean => {
  const lower = text.toLowerCase();
  return secretSourcePieces.some((piece) => lower.includes(piece));
};

/**
 * Commands to send local credentials off the machine, one finding per line. A text naming no secret source is
 * not mapped; the Markdown map is asked for otherwise.
 */
export function exfiltrationDirectives(text: string, mapOf: () => MarkdownMap): Directive[] {
  if (!maySourceSecrets(text)) return [];
  const map = mapOf();
  const found: Directive[] = [];
  const lines = new Set<number>();
  for (const match of text.matchAll(secretSource)) {
    const at = match.index + (/^[\s`'"(]/.test(match[0]) ? 1 : 0);
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    if (lines.has(lineStart) || writtenTo.test(text.slice(lineStart, at))) continue;
    const command = inCommand(map, at);
    let quoted: string;
    if (command !== null) {
      if (!destination.test(command) && !/\s-(?:d|F|T)\b|--data|--upload-file|--form/.test(command)) continue;
      quoted = command;
    } else {
      if (within(map.fences, at) !== null) continue;
      const sentence = sentenceBefore(text, at) + sentenceAfter(text, at);
      if (!destination.test(sentence) || !commandSentence(text, at)) continue;
      if (notADirective(map, at, match[0].length) !== null) continue;
      quoted = leftover(sentence);
    }
    lines.add(lineStart);
    const hidden = within(map.comments, at) !== null ? ', hidden in an HTML comment' : '';
    found.push({
      id: 'instructions-exfiltration',
      severity: 'CRITICAL',
      offset: at,
      message: `tells the model to send local credentials (${match[0].trim()}) off the machine: "${phrase(quoted)}"${hidden}`,
    });
  }
  return found;
}

const addressesModel = /\b(?:claude|assistant|ai|llm|model|agent|you|your)\b/i;
const sensitive: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\b(?:credentials?|secrets?|tokens?|passwords?|api[\s_-]?keys?|private\s+keys?|ssh)\b|~\/\.|\.env\b/i,
    'credentials',
  ],
  [/https?:\/\/|\b(?:curl|wget|webhook|upload|exfiltrat\w*)\b/i, 'the network'],
  [/\|\s*(?:ba|z)?sh\b|\brm\s+-rf\b|\bchmod\b|\bbase64\s+-d\b|\beval\b|\bsudo\b/i, 'the shell'],
  [
    /\b(?:silently|secretly|quietly|covertly|without\s+(?:telling|asking|mentioning|informing)|do\s+not\s+(?:mention|tell|reveal|show)|don't\s+(?:mention|tell|reveal|show))\b/i,
    "the user's oversight",
  ],
  [
    /\b(?:auto-?approve|approve\s+(?:all|every)|skip\s+(?:the\s+)?(?:review|confirmation|permission)s?)\b/i,
    'approvals',
  ],
];

// "Token" as a language model counts it, not a credential: a budget, a limit, a count, a context window
// ("Target: 900-1300 tokens", "max_tokens", "tokens per minute", "token budget", "a 200k-token context").
const modelTokens =
  /\b\d[\d,.]*\s*(?:[-–]\s*\d[\d,.]*\s*)?k?[\s-]*tokens?\b|\b(?:max(?:imum)?|min(?:imum)?|output|input|prompt|completion|context|thinking|reasoning|cached)[\s_-]*tokens?\b|\btokens?[\s_-]*(?:budget|limit|count|usage|cost|window|efficien\w*|per\s+\w+|consumption|spend|overhead)\b|\bcontext\s+window\b/gi;

/** HTML comments that give the model an instruction (none of the other rules having already said so). */
export function hiddenCommentDirectives(map: MarkdownMap, reported: readonly Directive[]): Directive[] {
  const found: Directive[] = [];
  for (const comment of map.comments) {
    if (reported.some((d) => d.offset >= comment.start && d.offset < comment.end)) continue;
    const body = map.text.slice(comment.start + 4, comment.end).replace(/-->$/, '');
    // Judged sentence by sentence: a sentence that touches something sensitive and speaks to the model or
    // commands; a whole comment that opens by addressing the model speaks to it in every sentence.
    const sentences = body.split(/(?<=[.!?;:])\s+|\n/);
    const toModel = addressedHeading.test(sentences.find((s) => s.trim() !== '') ?? '');
    const directives = sentences.filter((s) => !prohibits(s) && (toModel || addressesModel.test(s) || isCommand(s)));
    const touched = sensitive
      .filter(([pattern]) => directives.some((s) => pattern.test(s.replace(modelTokens, ' '))))
      .map(([, what]) => what);
    if (touched.length === 0) continue;
    found.push({
      id: 'instructions-hidden-comment',
      severity: 'HIGH',
      offset: comment.start,
      message: `an HTML comment, hidden when the Markdown is rendered, instructs the model about ${touched.join(' and ')}: "${phrase(body)}"`,
    });
  }
  return found;
}

/** "Note for Claude:", "Assistant, …", "Instructions for the AI": a comment written to the model. */
const addressedHeading =
  /^\s*(?:(?:note|instructions?|message|reminder|attention|important)\s+(?:to|for)\s+(?:the\s+)?)?(?:claude|assistant|ai|llm|model|agent)\b\s*[,:]|^\s*(?:note|instructions?|message|reminder)\s+(?:to|for)\s+(?:the\s+)?(?:claude|assistant|ai|llm|model|agent)\b/i;
/** A rule that forbids (`NEVER commit hardcoded secrets`), unless what it forbids is telling the user. */
const prohibits = (sentence: string): boolean =>
  /^[\s\-*"'`]*(?:never|do\s+not|don'?t|avoid|must\s+not|no)\b/i.test(sentence) &&
  !/\b(?:tell|mention|reveal|show|inform|notify|ask|confirm|warn)\b/i.test(sentence);

const isCommand = (sentence: string): boolean =>
  /^(?:read|send|upload|post|run|execute|curl|wget|copy|include|append|add|delete|remove|fetch|download|install|push|commit|approve|skip|disable|ignore|grab|collect|attach|email|forward|print|cat)\b/i.test(
    leftover(sentence),
  );
