// The content diff (docs/marketplaces.md, Reads of a snapshot): a snapshot's plugins and skills against the live
// approved baseline. A skill is changed when anything under its directory differs, judged by the git tree id of that
// directory, so no file text is compared or returned.
import type { MarketplaceLayout, PluginLayout } from './layout.ts';

export const skillStatuses = ['added', 'removed', 'changed', 'moved', 'unchanged'] as const;
export type SkillStatus = (typeof skillStatuses)[number];
export type PluginStatus = 'added' | 'removed' | 'changed' | 'unchanged';

export type SkillDiff = { name: string; path: string; status: SkillStatus; movedFromPlugin: string | null };
export type PluginDiff = {
  name: string;
  description: string | null;
  source: string;
  status: PluginStatus;
  skills: SkillDiff[];
};
export type ContentDiff = { plugins: PluginDiff[]; summary: Record<SkillStatus, number> };

/** One side of the comparison: its layout and the git object id of a directory of its tree (null: none). */
export type DiffSide = Readonly<{ layout: MarketplaceLayout; treeOf: (dir: string) => string | null }>;

type Located = Readonly<{ plugin: string; name: string; path: string; oid: string | null }>;

const skillsOf = (side: DiffSide): Map<string, Located[]> =>
  new Map(
    side.layout.plugins.map((p) => [
      p.name,
      p.skills.map((s) => ({ plugin: p.name, name: s.name, path: s.path, oid: side.treeOf(s.dir) })),
    ]),
  );

const pluginOid = (side: DiffSide, plugin: PluginLayout): string | null =>
  plugin.root === null ? null : side.treeOf(plugin.root);

/** With no baseline everything is added. */
export function contentDiff(current: DiffSide, baseline: DiffSide | null): ContentDiff {
  const now = skillsOf(current);
  const before = baseline ? skillsOf(baseline) : new Map<string, Located[]>();
  const basePlugins = new Map((baseline?.layout.plugins ?? []).map((p) => [p.name, p]));
  const currentNames = new Set(current.layout.plugins.map((p) => p.name));

  // A skill gone from its plugin in the baseline, whose name appears in another plugin now, has moved.
  const departed = new Map<string, Located>();
  for (const [plugin, skills] of before) {
    const staying = new Set((now.get(plugin) ?? []).map((s) => s.name));
    for (const skill of skills)
      if (!staying.has(skill.name) && !departed.has(skill.name)) departed.set(skill.name, skill);
  }
  // Moves are settled first, so the old plugin does not also report the skill as removed.
  const movedFrom = new Map<string, Located>();
  for (const plugin of current.layout.plugins) {
    const baseNames = new Set((before.get(plugin.name) ?? []).map((s) => s.name));
    for (const skill of now.get(plugin.name) ?? []) {
      const origin = departed.get(skill.name);
      if (baseNames.has(skill.name) || !origin || origin.plugin === plugin.name) continue;
      movedFrom.set(`${plugin.name}\u0000${skill.name}`, origin);
      departed.delete(skill.name);
    }
  }
  const movedAway = new Set(movedFrom.values());

  const plugins: PluginDiff[] = current.layout.plugins.map((plugin) => {
    const base = basePlugins.get(plugin.name);
    const baseSkills = new Map((before.get(plugin.name) ?? []).map((s) => [s.name, s]));
    const skills: SkillDiff[] = (now.get(plugin.name) ?? []).map((skill) => {
      const same = baseSkills.get(skill.name);
      if (same)
        return {
          name: skill.name,
          path: skill.path,
          status: same.oid === skill.oid ? 'unchanged' : 'changed',
          movedFromPlugin: null,
        };
      const origin = movedFrom.get(`${plugin.name}\u0000${skill.name}`);
      if (origin) {
        return {
          name: skill.name,
          path: skill.path,
          status: origin.oid === skill.oid ? 'moved' : 'changed',
          movedFromPlugin: origin.plugin,
        };
      }
      return { name: skill.name, path: skill.path, status: 'added', movedFromPlugin: null };
    });
    const currentSkillNames = new Set(skills.map((s) => s.name));
    for (const gone of before.get(plugin.name) ?? []) {
      if (!currentSkillNames.has(gone.name) && !movedAway.has(gone))
        skills.push({ name: gone.name, path: gone.path, status: 'removed', movedFromPlugin: null });
    }
    const status: PluginStatus = !base
      ? 'added'
      : pluginOid(current, plugin) === pluginOid(baseline!, base) &&
          plugin.source === base.source &&
          plugin.description === base.description &&
          skills.every((s) => s.status === 'unchanged')
        ? 'unchanged'
        : 'changed';
    return { name: plugin.name, description: plugin.description, source: plugin.source, status, skills };
  });
  for (const base of baseline?.layout.plugins ?? []) {
    if (currentNames.has(base.name)) continue;
    const skills = (before.get(base.name) ?? [])
      .filter((s) => !movedAway.has(s))
      .map((s): SkillDiff => ({ name: s.name, path: s.path, status: 'removed', movedFromPlugin: null }));
    plugins.push({ name: base.name, description: base.description, source: base.source, status: 'removed', skills });
  }
  const summary = Object.fromEntries(skillStatuses.map((s) => [s, 0])) as Record<SkillStatus, number>;
  for (const plugin of plugins) for (const skill of plugin.skills) summary[skill.status] += 1;
  return { plugins, summary };
}
