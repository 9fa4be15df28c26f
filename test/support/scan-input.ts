// A ScanInput built from in-memory files, for connector tests (the gateway builds it from a pinned tree).
import type { ScanFile, ScanInput } from '../../src/domain/kernel/findings.ts';

export type FileContent = string | Buffer;

/** Files by path → a ScanInput; Buffers with a NUL byte are binary, files over maxFileBytes are oversized. */
export function scanInput(
  files: Readonly<Record<string, FileContent>>,
  options: Readonly<{
    maxFileBytes?: number;
    allow?: readonly string[];
    ban?: readonly string[];
    /** Paths git would record as executable (mode 100755); every other file is not. */
    executable?: readonly string[];
  }> = {},
): ScanInput {
  const maxFileBytes = options.maxFileBytes ?? 1_048_576;
  const scanFiles: ScanFile[] = Object.entries(files).map(([path, content]) => {
    const buffer = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const oversized = buffer.length > maxFileBytes;
    const binary = !oversized && buffer.subarray(0, 8000).includes(0);
    const text = oversized || binary ? null : buffer.toString('utf8');
    const executable = options.executable?.includes(path) ?? false;
    return { path, size: buffer.length, text, binary, oversized, executable };
  });
  return {
    files: scanFiles,
    byPath: new Map(scanFiles.map((file) => [file.path, file])),
    maxFileBytes,
    license: { allow: options.allow ?? [], ban: options.ban ?? [] },
  };
}

/** JSON as a manifest author writes it (two-space indent), so lines can be found in it. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** The line (from 1) of the `nth` line of `text` containing `needle`; expected locations are computed, not counted. */
export function lineWith(text: string, needle: string, nth = 1): number {
  let seen = 0;
  const index = text.split('\n').findIndex((line) => line.includes(needle) && ++seen === nth);
  if (index === -1) throw new Error(`'${needle}' not found`);
  return index + 1;
}
