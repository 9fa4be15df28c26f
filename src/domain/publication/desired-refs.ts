/**
 * Exactly what a published repository holds (docs/facade.md, What is served): HEAD → refs/heads/main at the
 * served tip, and refs/snapshots/<sha> for every approved snapshot; nothing else. The served tip is the
 * newest approval, cleared (not moved back) when that snapshot is revoked: the served SHA changes only on
 * approval.
 */
export type DesiredRefs = Readonly<{ main: string | null; refs: ReadonlyMap<string, string> }>;

export function desiredRefs(approvedShas: readonly string[], servedSha: string | null): DesiredRefs {
  const refs = new Map<string, string>();
  for (const sha of approvedShas) refs.set(`refs/snapshots/${sha}`, sha);
  const main = servedSha !== null && approvedShas.includes(servedSha) ? servedSha : null;
  if (main !== null) refs.set('refs/heads/main', main);
  return { main, refs };
}
