// One naming convention in the portal: every file and folder under portal/src is named in kebab-case
// (lower-case words joined by hyphens, then its extensions: snapshot-page.tsx, openapi.d.ts).
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';

const root = join(import.meta.dirname, '../../../portal/src');
const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*$/;

const entries = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? [path, ...entries(path)] : [path];
  });

t.test('every file and folder under portal/src is named in kebab-case', async (t) => {
  const names = entries(root).map((path) => relative(root, path));
  t.ok(names.includes('app.tsx'), 'the listing reads portal/src');
  const offending = names.filter((name) => !kebab.test(name.split(/[\\/]/).pop()!));
  t.same(offending, [], 'names not in kebab-case');
});
