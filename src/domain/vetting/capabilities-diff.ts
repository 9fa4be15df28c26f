// What approving a snapshot newly asks users to let a plugin do: its capability inventory against the
// baseline's, plugin by plugin (decision 367). A capability is the same one when its kind and value are
// (a host, a variable, a program …), wherever it is seen: moving a curl call to another script asks
// nothing new. It is added when the baseline lacks it, or when it now runs on hook events it did not
// run on before (a host a script contacted only when run by hand, now contacted on SessionStart): then
// it is listed with those new events only. It is removed when the snapshot no longer has it at all; a
// capability that runs on fewer events than before asks nothing and is not listed.
import type { Capability, PluginCapabilities } from './capabilities.ts';

export type CapabilityChanges = Readonly<{ added: readonly Capability[]; removed: readonly Capability[] }>;

const keyOf = (c: Capability): string => `${c.kind}\u0000${c.value}`;

/** The capabilities `now` adds to `before`, and those it drops. */
export function capabilitiesDiff(now: readonly Capability[], before: readonly Capability[]): CapabilityChanges {
  const had = new Map(before.map((c) => [keyOf(c), c]));
  const has = new Set(now.map(keyOf));
  const added: Capability[] = [];
  for (const capability of now) {
    const old = had.get(keyOf(capability));
    if (old === undefined) {
      added.push(capability);
      continue;
    }
    const gained = capability.events.filter((event) => !old.events.includes(event));
    if (gained.length > 0) added.push({ ...capability, events: gained });
  }
  return { added, removed: before.filter((c) => !has.has(keyOf(c))) };
}

/**
 * Each plugin's changes, by name, of the plugins in either inventory. With no baseline everything is
 * added; a plugin only the baseline has removes everything it had.
 */
export function pluginCapabilityChanges(
  now: readonly PluginCapabilities[],
  before: readonly PluginCapabilities[] | null,
): Map<string, CapabilityChanges> {
  const old = new Map((before ?? []).map((p) => [p.name, p.capabilities]));
  const changes = new Map<string, CapabilityChanges>();
  for (const plugin of now) changes.set(plugin.name, capabilitiesDiff(plugin.capabilities, old.get(plugin.name) ?? []));
  for (const [name, capabilities] of old)
    if (!changes.has(name)) changes.set(name, { added: [], removed: [...capabilities] });
  return changes;
}
