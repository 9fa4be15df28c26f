// When a function of the script is followed into again: once per pass for each different set of
// argument values, not at all when the arguments say nothing its own reading lacks, and at most a few
// times each (its results so far stand for the others). This bounds the work per script.
import { empty, join, type Value } from './hooks-flow.ts';

const ids = new WeakMap<object, number>();
let nextId = 0;
const idOf = (thing: object): number => {
  let id = ids.get(thing);
  if (id === undefined) ids.set(thing, (id = ++nextId));
  return id;
};

/** Does a value say anything a function's own reading (its parameters unknown) would not know? */
const says = (value: Value | undefined): boolean =>
  value !== undefined &&
  (value.str !== undefined ||
    value.template !== undefined ||
    (value.taint?.length ?? 0) > 0 ||
    (value.refs?.length ?? 0) > 0 ||
    (value.objs?.length ?? 0) > 0 ||
    (value.fns?.length ?? 0) > 0);

/**
 * The arguments of a call as a key: calls given the same values are followed once per pass; calls given
 * nothing the function's own reading lacks are not followed at all (null).
 */
export function callKey(args: readonly Value[], self: Value | undefined): string | null {
  if (!args.some(says)) return null;
  const part = (v: Value): string =>
    `${v.str ?? v.template ?? ''}|${(v.taint ?? []).join(',')}|${(v.refs ?? []).join(',')}|${(v.objs ?? []).map(idOf).join(',')}|${(v.fns ?? []).map((f) => idOf(f.node)).join(',')}`;
  return `${self?.objs?.map(idOf).join(',') ?? ''}#${args.map(part).join('\u0000')}`;
}

/**
 * How many different argument values a function is followed into per pass; beyond, its results so far
 * stand. A small helper (a check that returns its argument, a path builder) is cheap to follow and is
 * called with many values, each its own: it gets more.
 */
export const contextsPerFunction = (fn: Readonly<{ start: number; end: number }>): number =>
  fn.end - fn.start < 400 ? 64 : 8;

/**
 * The arguments of calls not followed (a recursion, a chain too deep, the limits above reached), joined
 * by position: the function's own reading takes them as its parameters, so data passed to it is still
 * seen where it goes.
 */
export class Widened {
  private readonly positional = new Map<object, Value[]>();
  private readonly named = new Map<object, Map<string, Value>>();

  /** Adds a call's arguments; says whether the function's reading now has more to read. */
  add(fn: object, args: readonly Value[], kwargs: ReadonlyMap<string, Value> = new Map()): boolean {
    let grew = false;
    const old = this.positional.get(fn) ?? [];
    const next = [...old];
    args.forEach((arg, i) => {
      const joined = join(next[i] ?? empty, arg);
      if (joined !== next[i]) {
        next[i] = joined;
        grew = true;
      }
    });
    this.positional.set(fn, next);
    const names = this.named.get(fn) ?? new Map<string, Value>();
    for (const [key, value] of kwargs) {
      const joined = join(names.get(key) ?? empty, value);
      if (joined !== names.get(key)) {
        names.set(key, joined);
        grew = true;
      }
    }
    this.named.set(fn, names);
    return grew;
  }

  args(fn: object): readonly Value[] {
    return this.positional.get(fn) ?? [];
  }

  kwargs(fn: object): ReadonlyMap<string, Value> {
    return this.named.get(fn) ?? new Map();
  }
}
