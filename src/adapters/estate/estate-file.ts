// Reading `gateway.estate.file` (docs/estate.md): the file read, then parsed and validated whole by the domain
// (src/domain/estate/estate-file.ts). Used by `gateway estate check FILE` and by the reconciler's runs, so
// that both refuse exactly the same files with exactly the same `<file>:<line>: <message>` lines.
import { readFile } from 'node:fs/promises';
import type { Estate } from '../../domain/estate/estate.ts';
import { formatEstateFileErrors, parseEstateFile } from '../../domain/estate/estate-file.ts';

/** A valid file's estate, or every problem found, each a line `<file>:<line>: <message>` (never a value). */
export type LoadedEstateFile =
  Readonly<{ ok: true; estate: Estate }> | Readonly<{ ok: false; errors: readonly string[] }>;

/** The estate `path` declares; an unreadable file is one error, `<file>: cannot be read (<code>)`. */
export async function loadEstateFile(path: string, allowedSchemes: readonly string[]): Promise<LoadedEstateFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { ok: false, errors: [`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  const parsed = parseEstateFile(text, allowedSchemes);
  return parsed.ok ? parsed : { ok: false, errors: formatEstateFileErrors(path, parsed.errors) };
}
