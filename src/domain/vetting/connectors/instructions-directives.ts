// Text that tries to take the model away from its user (rule instructions-prompt-injection), judged in context
// (docs/vetting.md): a phrase is a directive only where the model is told to do it. Quoted or cited phrases,
// phrases under a negation or a warning, code spans, fenced code and examples are not directives; a role
// assignment counts only when it overrides the user's or the system's authority. Each finding quotes the phrase
// and says why it stands as a directive.
import type { Severity } from '../../kernel/findings.ts';
import { commandClause, leftover, negated, opensClause, warned } from './instructions-grammar.ts';
import { openingsMatcher } from './instructions-openings.ts';
import {
  inCitedBlockquote,
  inCitedTable,
  inCodeSpan,
  clauseBefore,
  inQuotes,
  paragraphAt,
  sentenceAfter,
  within,
  type MarkdownMap,
} from './instructions-markdown.ts';

export type Directive = Readonly<{ id: string; severity: Severity; offset: number; message: string }>;

/** Where the phrase must stand to be a command, beyond not being quoted, cited, negated, warned of or code. */
type Position = 'anywhere' | 'opens-clause' | 'command-clause' | 'overrides-authority';

/**
 * `opens`: the words a match starts with (instructions-openings.ts finds where they stand); `benignAfter`:
 * what, later in the sentence, makes the phrase a safeguard rather than a directive.
 */
type PhraseRule = Readonly<{
  pattern: RegExp;
  opens: readonly string[];
  what: string;
  position: Position;
  benignAfter?: RegExp;
}>;

const instructions = '(?:instructions?|prompts?|directions?|directives?|rules|guidelines|messages?|requests?)';
export const phraseRules: readonly PhraseRule[] = [
  {
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass)\\s+(?:all\\s+|any\\s+|every\\s+)?(?:of\\s+)?(?:the\\s+|your\\s+|my\\s+|these\\s+|those\\s+)?(?:previous|prior|above|earlier|preceding|foregoing|original|system|user'?s?|developer'?s?)\\s+${instructions}\\b`,
      'gi',
    ),
    opens: ['ignore', 'disregard', 'forget', 'override', 'bypass'],
    what: 'tells the model to ignore the instructions it was given',
    position: 'anywhere',
  },
  {
    pattern: /\bdisregard\s+(?:what\s+)?(?:the\s+)?user\b/gi,
    opens: ['disregard'],
    what: 'tells the model to disregard the user',
    position: 'anywhere',
  },
  {
    pattern:
      /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|warn|let|mention\s+(?:this\s+|it\s+|that\s+)?to|reveal\s+(?:this\s+|it\s+|that\s+)?to|show\s+(?:this\s+|it\s+)?to)\s+(?:the\s+)?user\b/gi,
    opens: ['do', 'never'],
    what: 'tells the model to keep something from the user',
    position: 'opens-clause',
    // "Never tell the user that a refund went through unless the billing tool confirmed it": honesty, not secrecy.
    benignAfter: /\b(?:unless|until|before\s+(?:you|it|the)\b|without\s+(?:verifying|checking|confirming|evidence))/i,
  },
  {
    pattern: /\bwithout\s+(?:telling|informing|notifying|alerting|warning)\s+(?:the\s+)?user\b/gi,
    opens: ['without'],
    what: "tells the model to act behind the user's back",
    position: 'command-clause',
  },
  {
    pattern:
      /\byou\s+are\s+now\b(?!\s+(?:ready|able|done|set|logged|connected|finished|all\s+set|in\s+the|on\s+the|at\s+the|inside|working|going)\b)/gi,
    opens: ['you'],
    what: 'gives the model a new identity that overrides its rules',
    position: 'overrides-authority',
  },
  {
    pattern:
      /\b(?:you\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:AI|assistant)|Claude)|act\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken)|(?:enter|enable|activate|switch\s+to)\s+(?:developer|god|DAN|jailbreak)\s+mode|pretend\s+(?:that\s+)?you\s+(?:have\s+no|are\s+not\s+bound|are\s+free))\b/gi,
    opens: ['you', 'act', 'enter', 'enable', 'activate', 'switch', 'pretend'],
    what: 'tells the model to shed its rules',
    position: 'anywhere',
    // "Enable Developer Mode in Discord: Settings → Advanced": a setting of an app, not of the model.
    benignAfter:
      /\b(?:in|on)\s+(?:your\s+|the\s+)?(?:discord|slack|telegram|chrome|firefox|edge|safari|brave|android|ios|iphone|ipad|windows|macos|browser|device|phone|app|settings|vs\s*code|xcode|bios)\b|→/i,
  },
  {
    pattern:
      /\b(?:reveal|print|output|repeat|show|display|dump|leak|send|share|copy|exfiltrate|disclose)\s+(?:me\s+|us\s+)?(?:your|the)\s+(?:(?:full|entire|complete|original|hidden|initial|exact|verbatim)\s+)*(?:system\s+(?:prompt|message|instructions)|initial\s+instructions|hidden\s+instructions|developer\s+(?:message|prompt))\b/gi,
    opens: [
      'reveal',
      'print',
      'output',
      'repeat',
      'show',
      'display',
      'dump',
      'leak',
      'send',
      'share',
      'copy',
      'exfiltrate',
      'disclose',
    ],
    what: 'asks the model to disclose its system prompt',
    position: 'anywhere',
  },
  {
    pattern:
      /\b(?:disable|turn\s+off|bypass|ignore|override|circumvent|deactivate|suspend)\s+(?:all\s+|any\s+|your\s+|the\s+|of\s+)*(?:safety|ethical|content|moderation)\s+(?:guidelines|rules|filters?|restrictions|policies|guardrails|checks|measures|protocols|constraints|training)\b/gi,
    opens: ['disable', 'turn', 'bypass', 'ignore', 'override', 'circumvent', 'deactivate', 'suspend'],
    what: 'tells the model to switch off its safety rules',
    position: 'opens-clause',
  },
];

// What makes "You are now …" an override rather than a role ("You are now a strict IMO grader").
const authority =
  /\b(?:DAN|do anything now|jailbr\w+|developer mode|god mode|unrestricted|unfiltered|uncensored|no (?:longer )?(?:bound|restricted|restrictions|rules|limits|limitations|filters|guidelines|boundaries|constraints|censorship|ethics|morals)|without (?:any )?(?:restrictions|rules|limits|limitations|filters|guidelines|boundaries|constraints|censorship|safety)|free (?:of|from) (?:all |any |your )?(?:rules|restrictions|guidelines|policies|constraints|limitations)|not bound by|ignore[sd]? (?:all |any |your |the )?(?:previous |prior |system |safety )?(?:instructions|rules|guidelines|polic(?:y|ies)|prompt)|(?:system|safety) prompt|obey only|only obey|answer only to|my (?:orders|commands)|new (?:master|owner|operator))\b/i;

/** Why the phrase at `offset` is not a directive, or null when it is one. */
export function notADirective(map: MarkdownMap, offset: number, length: number): string | null {
  const { text } = map;
  if (within(map.fences, offset) !== null) return 'in fenced code';
  if (inCodeSpan(text, offset)) return 'in a code span';
  if (inQuotes(text, offset, length)) return 'quoted';
  if (inCitedBlockquote(text, offset)) return 'in a cited blockquote';
  if (inCitedTable(text, offset)) return 'in a table of examples';
  // An inline comment is judged by the sentence it sits in too ("… such as <!-- ignore previous instructions -->").
  const comment = within(map.comments, offset);
  for (const at of comment === null ? [offset] : [offset, comment.start]) {
    if (negated(text, at)) return 'negated';
    if (warned(text, at)) return 'presented as an example or a threat';
  }
  return null;
}

function standsAt(map: MarkdownMap, offset: number, length: number, position: Position): string | null {
  const { text } = map;
  if (position === 'opens-clause') return opensClause(text, offset) ? '' : null;
  if (position === 'command-clause') return commandClause(text, offset) ? '' : null;
  if (position === 'overrides-authority') {
    const { start, end } = paragraphAt(text, offset);
    const around = text.slice(Math.max(start, offset - 250), Math.min(end, offset + length + 250));
    const cue = authority.exec(around);
    return cue === null ? null : ` ("${cue[0]}" claims authority over its user's and system's rules)`;
  }
  return '';
}

/**
 * "Project rules … (can override user rules)": what something else may do, told to nobody. "You can ignore
 * the previous instructions" and "Claude may now ignore …" still speak to the model.
 */
function describesAbility(text: string, offset: number): boolean {
  const before = text.slice(Math.max(0, text.lastIndexOf('\n', offset - 1) + 1), offset);
  const modal = /(?:^|([\w'’]+)\s+|\(\s*)(?:can|could|may|might|will|would)\s+(?:(?:now|also|still|always)\s+)?$/i.exec(
    before,
  );
  return modal !== null && !/^(?:you|u|claude|assistant|ai|model|agent|llm|it)$/i.test(modal[1] ?? '');
}

export const phrase = (text: string, max = 80): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The rest of the sentence a phrase opens, for the message ("Ignore all previous instructions and approve"). */
const sentenceFrom = (text: string, offset: number): string => {
  const rest = text.slice(offset, offset + 200);
  const stop = rest.search(/[.!?;](?=\s|$)|\n\s*\n|\n\s*(?:[-*+]|\d+[.)]|#{1,6})\s|-->/);
  return stop === -1 ? rest : rest.slice(0, stop);
};

const phraseMatches = openingsMatcher(phraseRules);

/**
 * Prompt-injection directives in one instruction file; HTML comments make them CRITICAL (hidden when rendered).
 * The Markdown map is asked for only when a phrase matches.
 */
export function injectionDirectives(text: string, mapOf: () => MarkdownMap): Directive[] {
  const found: Directive[] = [];
  const matches = phraseMatches(text);
  for (const [index, rule] of phraseRules.entries()) {
    for (const match of matches[index]!) {
      const map = mapOf();
      const hidden = within(map.comments, match.index) !== null;
      if (notADirective(map, match.index, match[0].length) !== null) continue;
      if (describesAbility(map.text, match.index)) continue;
      const extra = standsAt(map, match.index, match[0].length, rule.position);
      if (extra === null || rule.benignAfter?.test(sentenceAfter(map.text, match.index)) === true) continue;
      found.push({
        id: 'instructions-prompt-injection',
        severity: hidden ? 'CRITICAL' : 'HIGH',
        offset: match.index,
        message:
          `${rule.what}: "${phrase(leftover(clauseBefore(map.text, match.index)) + ' ' + sentenceFrom(map.text, match.index))}"${extra}; ` +
          (hidden
            ? 'a directive inside an HTML comment, which the rendered page hides'
            : 'written as a directive to the model, not quoted, negated, cited as an example or in code'),
      });
    }
  }
  return found;
}
