// Durations in configuration: an integer followed by exactly one unit (ms, s, m, h, d),
// e.g. 250ms, 5s, 1h, 90d, 0s; also a bare 0. A leading '-' only where the key allows it.
import { ConfigError } from './config-error.ts';

const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof unitMs;

const durationPattern = /^(-?)([0-9]+)(ms|s|m|h|d)$/;

export const durationHint = 'use forms like 250ms, 5s, 1h, 90d';

export interface ParseDurationOptions {
  /** Accept a leading '-' (e.g. -1d). */
  readonly allowNegative: boolean;
  /** The dotted key the text belongs to; it starts the ConfigError message. */
  readonly key?: string;
  /** Keep the text out of error messages. */
  readonly secret?: boolean;
}

/** Parses a duration into milliseconds; throws ConfigError for anything else. */
export function parseDuration(text: string, options: ParseDurationOptions): number {
  const key = options.key ?? null;
  const shown = options.secret === true ? 'the value' : `'${printable(text)}'`;
  if (text === '0') return 0;
  const match = durationPattern.exec(text);
  if (match === null) {
    throw new ConfigError(key, `${shown} is not a duration (${durationHint})`);
  }
  const [, sign, digits, unit] = match as unknown as [string, string, string, Unit];
  if (sign === '-' && !options.allowNegative) {
    throw new ConfigError(key, `${shown} is negative; this duration must not be negative`);
  }
  const ms = Number(digits) * unitMs[unit];
  if (!Number.isSafeInteger(ms)) {
    throw new ConfigError(key, `${shown} is too large a duration`);
  }
  if (ms === 0) return 0; // never -0
  return sign === '-' ? -ms : ms;
}

/** Formats milliseconds in the largest unit that represents them exactly (90d, 1h, 250ms, 0s). */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`not a whole number of milliseconds: ${ms}`);
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (abs % unitMs[unit] === 0) return `${sign}${abs / unitMs[unit]}${unit}`;
  }
  return `${sign}${abs}ms`;
}

/** Text safe to quote on one line: control characters escaped, long text shortened. */
function printable(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return escaped.length > 80 ? `${escaped.slice(0, 77)}...` : escaped;
}
