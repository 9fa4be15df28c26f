// The Markdown components of a plugin (docs/plugin-format.md, Skills, commands and agents): skills, commands and
// agents, each named from its frontmatter, and the hooks that frontmatter registers.
import { frontmatterOf } from './frontmatter.ts';
import { collectHooks } from './hooks.ts';
import {
  declared,
  isObject,
  problem,
  type Context,
  type Hook,
  type LayoutProblem,
  type MarkdownComponent,
  type Scope,
  type Skill,
} from './layout-context.ts';
import { basename, dirname, join } from './paths.ts';

function markdownUnder(ctx: Context, path: string): string[] {
  const file = ctx.files.get(path);
  if (file !== undefined) return path.endsWith('.md') ? [path] : [];
  return ctx.under(path).filter((p) => p.endsWith('.md'));
}

const areaOf = { skill: 'skills', command: 'commands', agent: 'agents' } as const;

/**
 * Read a Markdown component's frontmatter: its name (commands take the file's) and the hooks it registers.
 * A command is the legacy flat-file form of a skill with the same frontmatter, so its hooks are a skill's.
 * Where another parser or version could read the frontmatter otherwise, the hooks of that reading are
 * collected as well and the difference is recorded.
 */
function readMarkdown(
  ctx: Context,
  path: string,
  kind: 'skill' | 'command' | 'agent',
  fallbackName: string,
  hooks: Hook[],
): string {
  const area = areaOf[kind];
  const file = ctx.files.get(path);
  if (file?.oversized) ctx.unread.push({ file, area });
  const front = file?.text ? frontmatterOf(file.text) : null;
  if (front === null) return fallbackName;
  const fields = front.ok && isObject(front.doc.value) ? front.doc.value : {};
  const name =
    kind !== 'command' && typeof fields.name === 'string' && fields.name.trim() !== ''
      ? fields.name.trim()
      : fallbackName;
  if (!front.ok) {
    problem(ctx, area, 'invalid', path, front.line, front.message);
    if (front.mentionsHooks && front.others.length === 0)
      problem(ctx, 'hooks', 'invalid', path, front.line, `hooks in the frontmatter cannot be read: ${front.message}`);
  }
  for (const other of front.others)
    problem(ctx, area, 'invalid', path, other.line, `frontmatter ${other.why}; the hooks of both readings are vetted`);
  const readings = front.ok
    ? [front.doc, ...front.others.map((other) => other.doc)]
    : front.others.map((other) => other.doc);
  // Each reading reports what it finds; what two readings share is kept once.
  const found: Hook[] = [];
  const problems: LayoutProblem[] = [];
  for (const doc of readings) {
    const hooksField = isObject(doc.value) ? doc.value.hooks : undefined;
    if (hooksField != null)
      collectHooks(
        { ...ctx, problems },
        hooksField,
        doc,
        path,
        `${kind === 'agent' ? 'agent' : 'skill'} ${name}`,
        found,
      );
  }
  const once = <T>(items: readonly T[]): T[] => [
    ...new Map(items.map((item) => [JSON.stringify(item), item])).values(),
  ];
  hooks.push(...once(found));
  ctx.problems.push(...once(problems));
  return name;
}

/**
 * Skills: declared dirs add to the default skills/ scan, except for a marketplace-root plugin, where they
 * replace it; a dir is a skill itself (holds SKILL.md) or holds skill dirs.
 */
export function readSkills({ ctx, root, name, declarations, hooks }: Scope): Skill[] {
  const skillDirs = new Set<string>();
  const skillDirsUnder = (dir: string): string[] =>
    ctx
      .under(dir)
      .filter((p) => p.endsWith('/SKILL.md') && p.split('/').length === (dir === '' ? 2 : dir.split('/').length + 2))
      .map(dirname);
  const skillDeclarations = declarations('skills');
  if (!(root === '' && skillDeclarations.length > 0))
    skillDirsUnder(join(root, 'skills')).forEach((d) => skillDirs.add(d));
  for (const decl of skillDeclarations) {
    for (const item of declared(ctx, decl, root, 'skills', false)) {
      if (!('path' in item)) continue;
      const dir = item.path.endsWith('/SKILL.md') || item.path === 'SKILL.md' ? dirname(item.path) : item.path;
      const found = ctx.files.has(join(dir, 'SKILL.md')) ? [dir] : skillDirsUnder(dir);
      if (found.length === 0)
        problem(
          ctx,
          'skills',
          'missing',
          decl.path,
          decl.doc.lineOf(decl.holder, 'skills'),
          `skills path '${item.path}' holds no SKILL.md`,
        );
      found.forEach((d) => skillDirs.add(d));
    }
  }
  if (skillDirs.size === 0 && skillDeclarations.length === 0 && ctx.files.has(join(root, 'SKILL.md')))
    skillDirs.add(root);
  return [...skillDirs].map((dir): Skill => {
    const path = join(dir, 'SKILL.md');
    return { name: readMarkdown(ctx, path, 'skill', dir === root ? name : basename(dir), hooks), path, dir };
  });
}

/** Commands and agents: declared paths (files or dirs) replace the default directory. */
export function readMarkdownComponents(
  { ctx, root, declarations, hooks }: Scope,
  field: 'commands' | 'agents',
): MarkdownComponent[] {
  const decls = declarations(field);
  const paths = new Set<string>(decls.length === 0 ? markdownUnder(ctx, join(root, field)) : []);
  for (const decl of decls) {
    for (const item of declared(ctx, decl, root, field, false)) {
      if (!('path' in item)) continue;
      const found = markdownUnder(ctx, item.path);
      if (found.length === 0)
        problem(
          ctx,
          field,
          'missing',
          decl.path,
          decl.doc.lineOf(decl.holder, field),
          `${field} path '${item.path}' holds no .md file`,
        );
      found.forEach((p) => paths.add(p));
    }
  }
  const kind = field === 'commands' ? 'command' : 'agent';
  return [...paths].map((path) => ({
    name: readMarkdown(ctx, path, kind, basename(path).replace(/\.md$/, ''), hooks),
    path,
  }));
}
