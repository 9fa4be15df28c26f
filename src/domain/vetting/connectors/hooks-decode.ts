// Decoders a script may hide code or names behind, applied to the text it spells: base64, hex, rot13,
// character codes, reversal. What a decoder gives is labelled `decoded` (hooks-flow.ts) whether or not
// its input is known; when it is, the analysis reads the decoded text as the script will (a module
// name, a URL, code run by `exec`).
import { text, withTaint, type Value } from './hooks-flow.ts';

const decoder = new TextDecoder('utf-8', { fatal: true });
const utf8 = (binary: string): string => {
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  try {
    return decoder.decode(bytes);
  } catch {
    return binary;
  }
};

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const sextets = new Map([...alphabet].map((c, i) => [c, i]));

export function base64(encoded: string): string | undefined {
  const clean = encoded.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(clean) || clean.length % 4 === 1) return undefined;
  let binary = '';
  for (let i = 0; i < clean.length; i += 4) {
    const n = [0, 1, 2, 3].map((k) => sextets.get(clean[i + k] ?? 'A')!);
    const bits = (n[0]! << 18) | (n[1]! << 12) | (n[2]! << 6) | n[3]!;
    binary += String.fromCharCode((bits >> 16) & 255);
    if (i + 2 < clean.length) binary += String.fromCharCode((bits >> 8) & 255);
    if (i + 3 < clean.length) binary += String.fromCharCode(bits & 255);
  }
  return utf8(binary);
}

export function hex(encoded: string): string | undefined {
  const clean = encoded.replace(/\s+|\\x|0x/gi, '');
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) return undefined;
  return utf8(clean.replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16))));
}

export const rot13 = (encoded: string): string =>
  encoded.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

export const reverse = (value: string): string => [...value].reverse().join('');

export const charCodes = (codes: readonly number[]): string | undefined =>
  codes.every((c) => Number.isInteger(c) && c >= 0 && c <= 0x10ffff) ? String.fromCodePoint(...codes) : undefined;

/** Decoded text that can be code: a quote or an escape character spelled as a number is not. */
export const mayBeCode = (known: string | undefined): boolean => known === undefined || /[A-Za-z]/.test(known);

/** A decoder's output: the decoded text when the input is known, labelled with the decoder (unless it holds no letter). */
export function decoded(input: Value, how: string, decode?: (encoded: string) => string | undefined): Value {
  const label = `decoded:${how}`;
  const known = input.str !== undefined && decode ? decode(input.str) : undefined;
  if (known === undefined) return withTaint({ taint: input.taint ?? [] }, [label]);
  return text(known, mayBeCode(known) ? [...(input.taint ?? []), label] : input.taint);
}
