// The JSON components of a plugin (hooks, MCP and LSP servers): a default file that is always read, plus
// the files and inline objects plugin.json and the marketplace entry declare.
import { readJson, type Doc } from './json-document.ts';
import { declared, problem, type Context, type ProblemArea, type Scope } from './layout-context.ts';
import { join } from './paths.ts';

/** A JSON component file (hooks, .mcp.json, .lsp.json) read into `collect`; unreadable ones become problems. */
function readComponentFile(
  ctx: Context,
  area: ProblemArea,
  path: string,
  from: Readonly<{ path: string; line: number }> | null,
  collect: (doc: Doc) => void,
): void {
  const read = readJson(path, ctx.files.get(path));
  if (read.status === 'ok') collect(read.doc);
  else if (read.status === 'oversized') ctx.unread.push({ file: read.file, area });
  else if (read.status === 'invalid') problem(ctx, area, 'syntax', path, read.line, `${path} ${read.message}`);
  else if (from !== null) problem(ctx, area, 'missing', from.path, from.line, `${path} does not exist`);
}

/** Hooks, MCP and LSP servers: the default file is always read, declared files and inline objects add to it. */
export function readJsonComponents(
  { ctx, root, declarations }: Scope,
  field: 'hooks' | 'mcpServers' | 'lspServers',
  defaultPath: string,
  collect: (config: unknown, doc: Doc, path: string) => void,
): void {
  const seen = new Set<string>();
  const readFile = (path: string, from: Readonly<{ path: string; line: number }> | null) => {
    if (seen.has(path)) return;
    seen.add(path);
    readComponentFile(ctx, field, path, from, (doc) => collect(doc.value, doc, path));
  };
  readFile(join(root, defaultPath), null);
  for (const decl of declarations(field)) {
    for (const item of declared(ctx, decl, root, field, true)) {
      if ('path' in item) readFile(item.path, { path: decl.path, line: decl.doc.lineOf(decl.holder, field) });
      else collect(item.object, decl.doc, decl.path);
    }
  }
}
