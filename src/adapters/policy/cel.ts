// Policy rules in CEL (docs/policy-variables.md) on @marcbachmann/cel-js: compile once (parse, type-check
// against the declared variables, the guards of cel-guards.ts), evaluate per approval. Nothing here
// throws: a rule that cannot run is an error string, which the approve gate treats as a denial. This
// runs in a policy worker (policy-engine.ts), whose time limit stops whatever the guards cannot foresee.
import {
  Environment,
  EvaluationError,
  ParseError,
  TypeError as CelTypeError,
  type ASTNode,
  type ParseResult,
} from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import {
  policyTypes,
  policyVariableTypes,
  policyVariablesReference,
  type FieldSpec,
  type PolicyVariables,
} from '../../domain/policy/variables.ts';
import { guardProblem, maxComprehensionDepth, maxLiteralIterations } from './cel-guards.ts';

export { maxComprehensionDepth, maxLiteralIterations, regexProblem } from './cel-guards.ts';

export const maxExpressionLength = 4096;
/** Element reads from the variables' lists per evaluation (the library has no run-time cost limit of its own). */
export const maxListReads = 1_000_000;

/** Markdown for the OpenAPI description of the policy endpoints: the variables and these limits. */
export const policyVariablesDoc = `${policyVariablesReference}

Limits: at most ${maxExpressionLength} characters; comprehensions nest at most ${maxComprehensionDepth} deep and run their predicates over literal
lists at most ${maxLiteralIterations.toLocaleString('en-US')} times; no \`cel.bind\`; \`matches\` takes a literal RE2 pattern (linear time: no back-references or
lookaround); an evaluation reads at most ${maxListReads.toLocaleString('en-US')} list elements and is stopped at gateway.policy.evaluation-timeout.
Full reference: docs/policy-variables.md.`;

const fieldsOf = (type: string): Readonly<Record<string, FieldSpec>> | undefined =>
  (policyTypes as Readonly<Record<string, Readonly<Record<string, FieldSpec>>>>)[type];

// One class per type, registered as its constructor: cel-js converts a plain object to a declared type
// only where a variable or an iteration variable is bound, so `snapshot.plugins[0]` on plain objects fails
// ("is not of type 'Plugin'"). Values are built as instances instead (toCel).
const classes: ReadonlyMap<string, new () => object> = new Map(
  Object.keys(policyTypes).map((name) => [name, { [name]: class {} }[name]!]),
);
// cel-js 8.0.0: a field declared `timestamp` is a type of its own, not what timestamp() returns
// (`no such overload: timestamp == google.protobuf.Timestamp`); the protobuf name is.
const celType = (type: string) => type.replace(/\btimestamp\b/g, 'google.protobuf.Timestamp');

// Building an environment is the expensive part: once per process, on the first rule compiled (a process that
// never compiles one, as most never do, does not pay for it). Types are registered as message types with
// declared fields, so `p.nme` or `snapshot.plugins.exists(p, p.hooks > 0)` fail the check.
let built: Environment | null = null;
const environment = (): Environment => (built ??= buildEnvironment());
/** Builds the environment now: a policy worker does it before it says it is ready, so no evaluation's time pays it. */
export const preparePolicyEnvironment = (): void => void environment();
function buildEnvironment(): Environment {
  const env = new Environment({
    // Structural limits at parse time (the library's only limits); generous for 4,096 characters.
    limits: { maxAstNodes: 2048, maxDepth: 32, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 8 },
  });
  for (const [name, fields] of Object.entries(policyTypes)) {
    env.registerType(name, {
      ctor: classes.get(name)!,
      fields: Object.fromEntries(Object.entries(fields).map(([field, [type]]) => [field, celType(type)])),
    });
  }
  for (const [name, [type, description]] of Object.entries(policyVariableTypes))
    env.registerVariable(name, celType(type), { description });
  return env;
}

const program = Symbol('cel program');
/** A rule that parsed and type-checked to bool (or dyn, checked again at evaluation). */
export type CompiledPolicy = Readonly<{ expression: string; [program]: ParseResult }>;

const oneLine = (text: string) => text.split('\n')[0]!.replace(/\s+/g, ' ').trim();
const describe = (error: unknown): string => {
  if (error instanceof ParseError || error instanceof CelTypeError || error instanceof EvaluationError) {
    return `${oneLine(error.summary)}${error.range === undefined ? '' : ` (column ${error.range.start + 1})`}`;
  }
  return oneLine(error instanceof Error ? error.message : String(error));
};

export function compilePolicy(
  expression: string,
): { ok: true; program: CompiledPolicy } | { ok: false; error: string } {
  if (expression.length > maxExpressionLength) {
    return {
      ok: false,
      error: `the expression is ${expression.length} characters long; at most ${maxExpressionLength}`,
    };
  }
  if (expression.trim() === '') return { ok: false, error: 'the expression is empty' };
  let parsed: ParseResult;
  try {
    parsed = environment().parse(expression);
  } catch (error) {
    return {
      ok: false,
      error: `${error instanceof ParseError && error.code === 'limit_exceeded' ? 'too complex' : 'syntax error'}: ${describe(error)}`,
    };
  }
  const guard = guardProblem(parsed.ast);
  if (guard !== null) return { ok: false, error: guard };
  const checked = parsed.check();
  if (!checked.valid) {
    const unknownVariable =
      checked.error?.code === 'unknown_variable'
        ? `; the variables are ${Object.keys(policyVariableTypes).join(', ')}`
        : '';
    // At check time "No such key" can only be a field the declared type does not have.
    return {
      ok: false,
      error: `type error: ${describe(checked.error).replace(/^No such key: (\S+)/, "no field named '$1'")}${unknownVariable}`,
    };
  }
  // dyn (e.g. an element of a map() result) may still be a bool: evaluation refuses any other value.
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { ok: false, error: `the expression is of type ${checked.type}; a policy rule must be a bool` };
  }
  onRe2(parsed.ast);
  return { ok: true, program: { expression, [program]: parsed } };
}

export function evaluatePolicy(
  compiled: CompiledPolicy,
  variables: PolicyVariables,
): { matched: boolean } | { error: string } {
  const budget = { reads: 0, exceeded: false };
  try {
    const context = Object.fromEntries(
      Object.entries(policyVariableTypes).map(([name, [type]]) => [
        name,
        toCel(type, (variables as Readonly<Record<string, unknown>>)[name], budget),
      ]),
    );
    const result: unknown = compiled[program](context);
    // Checked after the fact: exists() and all() absorb an error when another element decides the result.
    if (budget.exceeded) return { error: overBudget };
    if (typeof result === 'boolean') return { matched: result };
    return { error: `the expression evaluated to ${kindOf(result)}, not a bool` };
  } catch (error) {
    return { error: budget.exceeded ? overBudget : describe(error) };
  }
}

const overBudget = `evaluation exceeded ${maxListReads.toLocaleString('en-US')} list element reads; the rule is too costly for this snapshot`;
const kindOf = (value: unknown): string =>
  typeof value === 'bigint'
    ? 'an int'
    : typeof value === 'number'
      ? 'a double'
      : typeof value === 'string'
        ? 'a string'
        : Array.isArray(value)
          ? 'a list'
          : value === null
            ? 'null'
            : typeof value === 'object'
              ? 'a map or message'
              : typeof value;

type Budget = { reads: number; exceeded: boolean };

/** The JSON variables as CEL values, driven by the schema: int → bigint, timestamp → Date, objects → their class, lists counted. */
function toCel(type: string, value: unknown, budget: Budget): unknown {
  if (type === 'int') return BigInt(value as number);
  if (type === 'timestamp') return new Date(value as string);
  const element = /^list<(.+)>$/.exec(type)?.[1];
  if (element !== undefined)
    return counted(
      (value as readonly unknown[]).map((item) => toCel(element, item, budget)),
      budget,
    );
  const fields = fieldsOf(type);
  if (fields === undefined) return value;
  const record = value as Readonly<Record<string, unknown>>;
  const instance = new (classes.get(type)!)() as Record<string, unknown>;
  for (const [field, [fieldType]] of Object.entries(fields)) instance[field] = toCel(fieldType, record[field], budget);
  return instance;
}

// A Proxy keeps Array.isArray and .constructor === Array (what cel-js checks) and sees every index read,
// so a rule like findings.exists(a, findings.exists(b, …)) stops at the budget instead of blocking the process.
const counted = (list: unknown[], budget: Budget): unknown[] =>
  new Proxy(list, {
    get(target, key, receiver) {
      if (
        typeof key === 'string' &&
        key.charCodeAt(0) >= 48 &&
        key.charCodeAt(0) <= 57 &&
        ++budget.reads > maxListReads
      ) {
        budget.exceeded = true;
        throw new Error(overBudget);
      }
      return Reflect.get(target, key, receiver);
    },
  });

// cel-js runs `matches` on the JavaScript (backtracking) engine; CEL specifies RE2. Every `matches` call
// of a checked rule is pointed at RE2JS (linear time), its literal pattern compiled once. cel-js 8.0.0
// keeps the call's handler on the checked node (`handle`, called with the receiver and the arguments);
// the unit tests pin this, so a library update that moves it fails them.
type CallNode = { op: string; args: unknown; handle?: (values: readonly unknown[]) => unknown };
function onRe2(node: ASTNode): void {
  const call = node as unknown as CallNode;
  if (node.op === 'rcall' && node.args[0] === 'matches') {
    const pattern = RE2JS.compile(String((node.args[2][0] as ASTNode).args));
    call.handle = ([text]) => {
      if (typeof text !== 'string') throw new Error(`matches() is called on ${kindOf(text)}, not a string`);
      return pattern.matcher(text).find();
    };
  }
  const args: unknown = node.args;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object' && 'op' in value) onRe2(value as ASTNode);
  };
  visit(args);
}
