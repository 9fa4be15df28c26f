// What the readers of one plugin layout share: the shapes they produce, the context they record problems
// into (a read never throws; what cannot be read is left out and recorded), and the component declarations
// of plugin.json and the marketplace entry they follow.
import { locationOf, type ScanFile } from '../kernel/findings.ts';
import type { Doc } from './json-document.ts';
import { inside } from './paths.ts';

export type ProblemArea =
  'marketplace' | 'plugin' | 'skills' | 'commands' | 'agents' | 'hooks' | 'mcpServers' | 'lspServers';
/** syntax: the file is not valid JSON; escapes: a path leaves the plugin (or repository); missing: a declared path has no file. */
export type ProblemKind = 'syntax' | 'invalid' | 'escapes' | 'missing' | 'unsupported';
export type LayoutProblem = Readonly<{ location: string; message: string; area: ProblemArea; kind: ProblemKind }>;
/** A file the layout needed but could not read because it is over the scanning size limit. */
export type Unread = Readonly<{ file: ScanFile; area: ProblemArea }>;

export type Skill = Readonly<{ name: string; path: string; dir: string }>;
export type MarkdownComponent = Readonly<{ name: string; path: string }>;
export type Hook = Readonly<{
  event: string;
  matcher: string | null;
  /** command, prompt, http, mcp_tool, agent… as declared. */
  type: string;
  /** The command line, prompt text, URL or tool the handler runs. */
  runs: string;
  location: string;
  /** `plugin`, `skill <name>` or `agent <name>`. */
  declaredBy: string;
}>;
export type ServerConfig = Readonly<{
  command: string | null;
  args: readonly string[];
  url: string | null;
  type: string | null;
  env: Readonly<Record<string, string>>;
}>;
export type Server = Readonly<{ name: string; path: string; location: string; config: ServerConfig }>;

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export type Context = Readonly<{
  files: ReadonlyMap<string, ScanFile>;
  under: (dir: string) => readonly string[];
  problems: LayoutProblem[];
  unread: Unread[];
}>;

/** A component field as declared in plugin.json or the marketplace entry, with where to point at it. */
export type Declaration = Readonly<{ value: unknown; doc: Doc; path: string; holder: Json; field: string }>;

/** One plugin being read: where it is, what plugin.json and the entry declare, and the hooks its Markdown registers. */
export type Scope = Readonly<{
  ctx: Context;
  root: string;
  name: string;
  declarations: (field: string) => Declaration[];
  hooks: Hook[];
}>;

export const problem = (
  ctx: Context,
  area: ProblemArea,
  kind: ProblemKind,
  path: string,
  line: number,
  message: string,
): void => {
  ctx.problems.push({ location: locationOf(path, line), message, area, kind });
};

/** The paths (and, where allowed, inline objects) one declaration names; escaping or mistyped items are problems. */
export function declared(
  ctx: Context,
  decl: Declaration,
  root: string,
  area: ProblemArea,
  inline: boolean,
): Array<{ path: string } | { object: Json }> {
  const out: Array<{ path: string } | { object: Json }> = [];
  const items: Array<[unknown, number]> = Array.isArray(decl.value)
    ? decl.value.map((item, k) => [item, decl.doc.lineOf(decl.value, k)])
    : [[decl.value, decl.doc.lineOf(decl.holder, decl.field)]];
  for (const [item, line] of items) {
    if (typeof item === 'string') {
      const path = inside(root, item);
      if (path === null)
        problem(ctx, area, 'escapes', decl.path, line, `${decl.field} path '${item.slice(0, 120)}' escapes the plugin`);
      else out.push({ path });
    } else if (inline && isObject(item)) out.push({ object: item });
    else
      problem(
        ctx,
        area,
        'invalid',
        decl.path,
        line,
        `${decl.field} must be ${inline ? 'a path, a list of paths or an object' : 'a path or a list of paths'}`,
      );
  }
  return out;
}
