// What a push to a hosted marketplace may ask for, as an ordered list of named checks (the first
// refusal wins). The pack itself is judged later: fast-forward by git under the marketplace's push
// policy, content by ingestion and vetting.

/** The only ref a publisher pushes; everything else in the repository is the gateway's. */
export const publishedRef = 'refs/heads/main';

/** One ref update of a push; a null sha is git's zero id (the ref is created, or deleted). */
export type PushCommand = Readonly<{ ref: string; oldSha: string | null; newSha: string | null }>;

type PushCheck = Readonly<{ name: string; refusal(command: PushCommand): string | null }>;

export const pushChecks: readonly PushCheck[] = [
  {
    name: 'only-main',
    refusal: (c) => (c.ref === publishedRef ? null : `only ${publishedRef} can be pushed to a hosted marketplace`),
  },
  {
    name: 'no-deletion',
    refusal: (c) => (c.newSha === null ? `${publishedRef} of a hosted marketplace cannot be deleted` : null),
  },
];

export type PushRefusal = Readonly<{ ref: string; reason: string }>;

/**
 * The refusal of every command the checks refuse. A push is taken whole or not at all: when one
 * command is refused, the others are refused with it (the gateway never applies half a push).
 */
export function refusePush(commands: readonly PushCommand[]): PushRefusal[] {
  const refused = commands.map((command) => ({
    ref: command.ref,
    reason: pushChecks.map((check) => check.refusal(command)).find((reason) => reason !== null) ?? null,
  }));
  if (refused.every((r) => r.reason === null)) return [];
  return refused.map((r) => ({
    ref: r.ref,
    reason: r.reason ?? 'not applied: another ref of the same push was refused',
  }));
}
