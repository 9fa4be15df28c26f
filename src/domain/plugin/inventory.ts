// The content inventory (docs/marketplaces.md, Reads of a snapshot): per plugin, what it installs, each piece named
// with its repository-relative path. Read from the layout, so it shares the layout's tolerance: escaping paths and
// unreadable declarations are simply absent, and the call never fails.
import type { Hook, MarkdownComponent } from './layout-context.ts';
import type { MarketplaceLayout } from './layout.ts';

// The inventory names what the layout read, in the same shapes.
export type InventoryComponent = MarkdownComponent;
export type InventoryHook = Hook;
export type InventoryPlugin = Readonly<{
  name: string;
  description: string | null;
  source: string;
  skills: readonly InventoryComponent[];
  commands: readonly InventoryComponent[];
  agents: readonly InventoryComponent[];
  hooks: readonly InventoryHook[];
  mcpServers: readonly InventoryComponent[];
  lspServers: readonly InventoryComponent[];
}>;
export type Inventory = Readonly<{ plugins: readonly InventoryPlugin[] }>;

const named = (items: readonly Readonly<{ name: string; path: string }>[]): InventoryComponent[] =>
  items.map(({ name, path }) => ({ name, path }));

export function inventoryOf(layout: MarketplaceLayout): Inventory {
  return {
    plugins: layout.plugins.map((plugin) => ({
      name: plugin.name,
      description: plugin.description,
      source: plugin.source,
      skills: named(plugin.skills),
      commands: named(plugin.commands),
      agents: named(plugin.agents),
      hooks: plugin.hooks.map(({ event, matcher, type, runs, location, declaredBy }) => ({
        event,
        matcher,
        type,
        runs,
        location,
        declaredBy,
      })),
      mcpServers: named(plugin.mcpServers),
      lspServers: named(plugin.lspServers),
    })),
  };
}
