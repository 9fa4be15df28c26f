// Checks of single string values beyond their kind, and how values appear in refusals.
// A check returns the problem (one line, without the key) or null when the value is fine.
import cron from 'node-cron';

export type StringCheck = (value: string) => string | null;

/** An http(s) URL without credentials; `bare` also refuses a query or fragment. */
export const httpUrl =
  ({ bare }: { bare: boolean }): StringCheck =>
  (text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return `${quote(text)} is not a URL (expected http:// or https://)`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${quote(text)} is not an http or https URL`;
    if (url.username !== '' || url.password !== '') return 'must not contain credentials';
    if (bare && (url.search !== '' || url.hash !== '')) return `${quote(text)} must not have a query or fragment`;
    return null;
  };

/**
 * A schedule node-cron accepts: the gateway hands it to node-cron unchanged, so node-cron's own
 * validator is the only grammar that can agree with what will run.
 */
export const cronSchedule: StringCheck = (expression) => {
  let valid: boolean;
  try {
    valid = cron.validate(expression);
  } catch {
    valid = false;
  }
  return valid
    ? null
    : `${quote(expression)} is not a cron expression node-cron accepts ` +
        '([second] minute hour day-of-month month day-of-week, e.g. "*/15 * * * *")';
};

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

/** A value for a refusal: quoted scalars, the type for collections, only the type for secrets. */
export function show(value: unknown, secret = false): string {
  if (secret) return typeName(value);
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeName(value);
}

/** Text safe to quote on one line: control characters escaped, long text shortened. */
export function quote(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return `'${escaped.length > 80 ? `${escaped.slice(0, 77)}...` : escaped}'`;
}
