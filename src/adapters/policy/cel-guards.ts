// What a policy rule may do, checked when it compiles, before it ever runs: costs the CEL library does
// not bound. `matches` runs on RE2 (cel.ts), so a pattern is refused only when RE2 cannot read it; the
// work of comprehensions over literal lists is counted here (lists from the variables are counted as
// they are read, cel.ts), and whatever escapes both is stopped by the evaluation's time limit.
import type { ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** all/exists/exists_one/map/filter inside one another: each level multiplies the work. */
export const maxComprehensionDepth = 3;
/**
 * Predicate runs a rule's comprehensions over literal lists may make, counted at compile time as the
 * product of the literal lists' sizes down each nesting (a list from the variables counts as one here).
 */
export const maxLiteralIterations = 100_000;

const comprehensions = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

const childrenOf = (node: ASTNode): readonly ASTNode[] => {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [node.args[0]];
    case '!_':
    case '-_':
      return [node.args];
    case 'call':
      return node.args[1];
    case 'rcall':
      return [node.args[1], ...node.args[2]];
    case 'map':
      return node.args.flat();
    default:
      return node.args;
  }
};

const oneLine = (text: string) => text.split('\n')[0]!.replace(/\s+/g, ' ').trim();

/** Why RE2 (the engine `matches` runs on) cannot read a pattern, or null when it can. */
export function regexProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return `not a valid RE2 regular expression (${oneLine((error as Error).message)}); back-references and lookaround are not supported`;
  }
}

/**
 * How many elements a list-valued node may hold, as far as the expression shows: a literal list its
 * length (a literal `+` their sum), a map() or filter() its receiver's; anything read from the variables
 * (counted at run time) 1.
 */
function literalSize(node: ASTNode): number {
  if (node.op === 'list') return (node.args as readonly ASTNode[]).length;
  if (node.op === '+') return literalSize(node.args[0] as ASTNode) + literalSize(node.args[1] as ASTNode);
  if (node.op === 'rcall' && (node.args[0] === 'map' || node.args[0] === 'filter')) return literalSize(node.args[1]);
  return 1;
}

/** The predicate runs under `node` when it runs once, or a problem. */
function costOf(node: ASTNode, depth: number): { cost: number } | { problem: string } {
  let own = 0;
  let children = childrenOf(node);
  if (node.op === 'rcall') {
    const [name, receiver, args] = node.args;
    // cel.bind names a value, so a chain of binds can double a string or list per step: memory, not time.
    if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel')
      return { problem: 'cel.bind is not allowed in policy rules' };
    if (name === 'matches') {
      const pattern = args[0];
      if (pattern?.op !== 'value' || typeof pattern.args !== 'string')
        return { problem: 'matches() takes a string literal pattern in policy rules' };
      const problem = regexProblem(pattern.args);
      if (problem !== null) return { problem: `matches(${JSON.stringify(pattern.args)}): ${problem}` };
    }
    if (comprehensions.has(name)) {
      if (depth + 1 > maxComprehensionDepth)
        return {
          problem: `${name}() is nested ${depth + 1} deep; comprehensions (all, exists, exists_one, map, filter) nest at most ${maxComprehensionDepth} deep`,
        };
      // The receiver is evaluated once, at the outer level; the predicate once per element.
      const outer = costOf(receiver, depth);
      if ('problem' in outer) return outer;
      let inner = 0;
      for (const arg of args) {
        const cost = costOf(arg, depth + 1);
        if ('problem' in cost) return cost;
        inner += cost.cost;
      }
      own = outer.cost + literalSize(receiver) * (1 + inner);
      children = [];
    }
  }
  for (const child of children) {
    const cost = costOf(child, depth);
    if ('problem' in cost) return cost;
    own += cost.cost;
  }
  return { cost: own };
}

/** Why a parsed rule may not run, or null. */
export function guardProblem(ast: ASTNode): string | null {
  const cost = costOf(ast, 0);
  if ('problem' in cost) return cost.problem;
  if (cost.cost > maxLiteralIterations)
    return `the rule's comprehensions over literal lists would run their predicates ${cost.cost.toLocaleString('en-US')} times; at most ${maxLiteralIterations.toLocaleString('en-US')}`;
  return null;
}
