// What the overview's recent activity and the ledger browser share to show grouped ledger entries
// (ledger-groups.ts): which groups are open, the button that opens one, and who acted in it.
import { humanize } from './labels';
import type { EntryGroup, GroupableEntry } from './ledger-groups';
import { useToggleSet } from './toggle-set';

/** Groups opened by the reader, by their newest entry's id (a group's key while the screen is shown). */
export function useOpenGroups() {
  const open = useToggleSet<number>();
  return { isOpen: (id: number) => open.items.has(id), toggle: open.toggle };
}

/** Opens or closes a group's own rows; `controls` names the element that holds them once open. */
export function GroupToggle<E extends GroupableEntry>({
  group,
  open,
  onToggle,
  controls,
}: {
  group: EntryGroup<E>;
  open: boolean;
  onToggle: () => void;
  controls: string;
}) {
  const count = group.entries.length;
  return (
    <button
      type="button"
      className="secondary group-toggle"
      aria-expanded={open}
      // A collapsed group's rows are not rendered: nothing to point at until it opens.
      aria-controls={open ? controls : undefined}
      onClick={onToggle}
    >
      {open ? 'Hide' : 'Show'} the {count} entries
      <span className="visually-hidden"> of {group.title}</span>
    </button>
  );
}

/** Who acted in a group: each principal once, with the kind of actor ("root (Human)"). */
export function actorsOf<E extends GroupableEntry & { actorType: string }>(group: EntryGroup<E>): string {
  const seen = new Map<string, string>();
  for (const entry of group.entries) if (!seen.has(entry.principal)) seen.set(entry.principal, entry.actorType);
  return [...seen].map(([principal, actorType]) => `${principal} (${humanize(actorType)})`).join(', ');
}
