/** What a published repository advertises: the served tip and every pinned snapshot. */
export type Advertised = Readonly<{ main: string | null; snapshots: ReadonlySet<string> }>;

export function advertisedFrom(refs: ReadonlyMap<string, string>): Advertised {
  const snapshots = new Set<string>();
  for (const [ref, sha] of refs) if (ref.startsWith('refs/snapshots/')) snapshots.add(sha);
  return { main: refs.get('refs/heads/main') ?? null, snapshots };
}

/** Every want must be a tip the facade advertises (docs/facade.md: v2 would otherwise hand out any object). */
export const isAdvertised = (advertised: Advertised, sha: string): boolean =>
  advertised.main === sha || advertised.snapshots.has(sha);

/**
 * upload-pack entries: a want equal to the tip records refs/heads/main; another advertised
 * commit records refs/snapshots/<sha>; null if none.
 */
export function attributeWant(advertised: Advertised, sha: string): string | null {
  if (advertised.main === sha) return 'refs/heads/main';
  if (advertised.snapshots.has(sha)) return `refs/snapshots/${sha}`;
  return null;
}
