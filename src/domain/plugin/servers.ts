// MCP and LSP server configurations (docs/plugin-format.md, MCP and LSP servers): each server with its declaring line.
import { locationOf } from '../kernel/findings.ts';
import type { Doc } from './json-document.ts';
import { isObject, problem, type Context, type Server, type ServerConfig } from './layout-context.ts';

function serverConfigOf(config: unknown): ServerConfig | string {
  if (!isObject(config)) return 'is not an object';
  const { command, args, url, type, env } = config;
  if (command != null && typeof command !== 'string') return 'command is not a string';
  if (args != null && !(Array.isArray(args) && args.every((a) => typeof a === 'string')))
    return 'args is not a list of strings';
  if (url != null && typeof url !== 'string') return 'url is not a string';
  if (type != null && typeof type !== 'string') return 'type is not a string';
  if (env != null && !(isObject(env) && Object.values(env).every((v) => typeof v === 'string')))
    return 'env is not a map of strings';
  return {
    command: command ?? null,
    args: (args as string[] | null | undefined) ?? [],
    url: url ?? null,
    type: type ?? null,
    env: (env as Record<string, string> | null | undefined) ?? {},
  };
}

export function collectServers(
  ctx: Context,
  area: 'mcpServers' | 'lspServers',
  config: unknown,
  doc: Doc,
  path: string,
  out: Server[],
): void {
  // Both `{"mcpServers": {...}}` and the flat map are in use.
  const servers = isObject(config) && isObject(config[area]) ? config[area] : config;
  if (!isObject(servers))
    return problem(ctx, area, 'invalid', path, doc.lineOf(config), `${area} must be an object of servers`);
  for (const [name, value] of Object.entries(servers)) {
    const line = doc.lineOf(servers, name);
    const parsed = serverConfigOf(value);
    if (typeof parsed === 'string') problem(ctx, area, 'invalid', path, line, `server '${name}' ${parsed}`);
    else out.push({ name, path, location: locationOf(path, line), config: parsed });
  }
}
