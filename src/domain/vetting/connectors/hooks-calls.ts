// When a function of the script is followed into again: once per pass for each different set of
// argument values, not at all when the arguments say nothing its own reading lacks, and at most a few
// times each (its results so far stand for the others). This bounds the work per script.
import type { Value } from './hooks-flow.ts';

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

/** How many different argument values a function is followed into per pass; beyond, its results so far stand. */
export const contextsPerFunction = 8;
