// Hook configurations (docs/plugin-format.md, Hooks), from hooks.json, an inline object or a Markdown frontmatter:
// every handler with the line that declares what it runs.
import { locationOf } from '../kernel/findings.ts';
import type { Doc } from './json-document.ts';
import { isObject, problem, type Context, type Hook } from './layout-context.ts';

const runFields = ['command', 'prompt', 'url', 'tool'] as const;

export function collectHooks(
  ctx: Context,
  config: unknown,
  doc: Doc,
  path: string,
  declaredBy: string,
  out: Hook[],
): void {
  // hooks.json wraps the events in `hooks`; inline and frontmatter configs are the events map itself.
  const events = isObject(config) && isObject(config.hooks) ? config.hooks : config;
  const bad = (node: unknown, key: string | number | undefined, message: string) =>
    problem(ctx, 'hooks', 'invalid', path, doc.lineOf(node, key), message);
  if (!isObject(events)) return bad(config, undefined, 'hooks must be an object of events');
  for (const [event, groups] of Object.entries(events)) {
    if (!Array.isArray(groups)) {
      bad(events, event, `hooks for '${event}' must be a list`);
      continue;
    }
    for (const [g, group] of groups.entries()) {
      if (
        !isObject(group) ||
        !Array.isArray(group.hooks) ||
        (group.matcher != null && typeof group.matcher !== 'string')
      ) {
        bad(groups, g, `a '${event}' hook group needs a hooks list and a string matcher`);
        continue;
      }
      const matcher = typeof group.matcher === 'string' ? group.matcher : null;
      for (const [h, handler] of group.hooks.entries()) {
        const field = isObject(handler) ? runFields.find((f) => typeof handler[f] === 'string') : undefined;
        if (
          !isObject(handler) ||
          field === undefined ||
          (handler.type !== undefined && typeof handler.type !== 'string')
        ) {
          bad(group.hooks, h, `a '${event}' hook handler has no type and nothing to run`);
          continue;
        }
        const args = Array.isArray(handler.args) ? handler.args.filter((a): a is string => typeof a === 'string') : [];
        const server = field === 'tool' && typeof handler.server === 'string' ? [handler.server] : [];
        out.push({
          event,
          matcher,
          type: typeof handler.type === 'string' ? handler.type : 'command',
          runs: [...server, handler[field] as string, ...args].join(' '),
          location: locationOf(path, doc.lineOf(handler, field)),
          declaredBy,
        });
      }
    }
  }
}
