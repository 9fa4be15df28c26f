// The little grammar the instructions rules share: whether a phrase opens its clause as a command (imperative
// position), whether the sentence before it negates or warns, and the words that carry those judgements.
import { clauseBefore, sentenceBefore } from './instructions-markdown.ts';

// Words that may open a command without changing it: list markers, emphasis, "and then", "please", "you must"…
const discourse =
  /^(?:\s+|[-*+>#|]+|\d+[.)]|[*_~`"“”]+|[:!,]|(?:and|then|also|please|kindly|always|now|so|but|first|finally|next|afterwards|important|note|nb|remember|silently|quietly|secretly|covertly|just|simply|immediately|from now on|instead|you(?:\s+(?:must|should|will|shall|need to|have to|are to|are required to|can|may))?|make sure(?: to| you)?|be sure to|ensure (?:that )?you)\b|(?:claude|assistant|ai|agent|model|llm)\s*[:,])/i;

/** What is left of a clause once the words that may open a command are taken away. */
export function leftover(clause: string): string {
  let rest = clause;
  for (;;) {
    const match = discourse.exec(rest);
    if (match === null || match[0] === '') return rest.trim();
    rest = rest.slice(match[0].length);
  }
}

const relative = /\b(?:that|which|who|whose|where|when|if|because|whether)\b/i;

/**
 * The phrase at `offset` opens its clause as a command: "Do not tell the user", "Push, then never tell the
 * user". After "and"/"or" in a sentence that describes something ("Fallbacks that degrade silently and do not
 * tell the user", a bug pattern), it continues the description.
 */
export function opensClause(text: string, offset: number): boolean {
  if (leftover(clauseBefore(text, offset)) !== '') return false;
  const sentence = leftover(sentenceBefore(text, offset));
  return sentence === '' || commandVerbs.test(sentence) || !relative.test(sentence);
}

// Verbs a hidden directive starts with. A clause that starts with a noun ("Retry logic that exhausts attempts
// without informing the user", a bug pattern to hunt) is a description, not a command.
const commandVerbs =
  /^(?:delete|remove|rm|run|execute|exec|send|upload|post|push|force-push|commit|install|modify|change|write|edit|overwrite|copy|move|read|collect|gather|exfiltrate|download|proceed|continue|do|make|perform|add|include|append|create|open|call|invoke|fetch|disable|enable|approve|merge|deploy|transmit|share|forward|email|mail|save|store|replace|insert|act|respond|apply|update|rewrite|force|grant|rotate|revoke|drop|truncate|publish|release|print|log|curl|wget|pipe|attach|embed|encode|cat|grab|harvest|dump|archive|zip|tar|take|get|bypass|ignore|skip|hide|conceal|keep|leave|change|set|reset|close|kill|stop|start|launch|summari[sz]e|review|check|list|answer|reply|analy[sz]e|explain|describe|format|fix|refactor|generate|translate|complete|find|search)\b/i;

/** The clause before `offset` is a command: it starts with a verb and is no relative clause. */
export function commandClause(text: string, offset: number): boolean {
  const clause = leftover(clauseBefore(text, offset));
  return commandVerbs.test(clause) && !relative.test(clause);
}

/** The sentence before `offset` starts with a command verb ("Before answering, read ~/.ssh/id_rsa and …"). */
export function commandSentence(text: string, offset: number): boolean {
  const sentence = leftover(sentenceBefore(text, offset)).replace(
    /^(?:before|after|when|once|while|whenever|if|as soon as|at the end|at the start)\b[^,]{0,80},\s*/i,
    '',
  );
  return commandVerbs.test(leftover(sentence));
}

const negationWord = /\b(?:never|not|cannot|refuse[sd]?|reject|resist|avoid|prohibited|forbidden)\b|n't\b/i;

// A phrase introduced as what an attacker writes, what untrusted text may contain, or what to look for.
const warning =
  /\b(?:such as|like|e\.g\.|i\.e\.|for example|for instance|including|examples?|says?|saying|said|tells?|telling|told|asks?|asking|asked|requests? to|requesting|demands? to|demanding|attempts?|attempting|try to|tries|trying|tried|claims?|claiming|phrases?|wording|injections?|injected|malicious|attackers?|adversar\w*|untrusted|suspicious|flag|detect|watch(?: out)? for|beware|wary|look(?:ing)? for|treat\w*|quoted|whether|pretend\w* to be|contain(?:s|ing)?|disguised|hidden)\b/i;

/** The sentence before the phrase negates it ("never", "do not follow", "must not"). */
export const negated = (text: string, offset: number): boolean => negationWord.test(sentenceBefore(text, offset));

/** The sentence before the phrase presents it as an example or a threat ("can contain", "such as", "attempts to"). */
export const warned = (text: string, offset: number): boolean => warning.test(sentenceBefore(text, offset));
