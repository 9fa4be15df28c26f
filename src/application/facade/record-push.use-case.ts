// A push git has applied to a hosted marketplace's quarantine (/publish) is recorded before the pusher
// hears of it: marketplace-pushed on the publish stream, decided by domain/publish. A push that cannot
// be recorded does not stand: main is put back, so the quarantine never holds an unrecorded tip.
import { runCommand } from '../kernel/run-command.ts';
import { isAncestor, pinPushed, restoreRef, unpin } from '../../adapters/git/receive-pack.ts';
import type { PushPolicy } from '../../domain/marketplace/marketplace.events.ts';
import { publishDecider } from '../../domain/publish/publish.decider.ts';
import { publishedRef } from '../../domain/publish/push-rules.ts';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { streams } from '../../domain/kernel/streams.ts';
import type { Log, Ports } from '../kernel/ports.ts';

/** main moved from `previousTip` (null: the first push) to `newTip` in `repo`, the quarantine of `marketplace`. */
export type AppliedPush = Readonly<{
  marketplace: Readonly<{ id: number; name: string }>;
  policy: PushPolicy;
  repo: string;
  previousTip: string | null;
  newTip: string;
}>;

/** The decider refused to record a push git had applied (a rewrite on append-only). */
class PushNotRecorded extends Error {}

/**
 * Records the push, synchronously. When that fails the ref is put back and the push refused: the answer
 * is then why, for the pusher (null when it was recorded). `log` is the request's, so lines carry its id.
 */
export async function recordPush(
  deps: Pick<Ports, 'store' | 'waiter'>,
  log: Log,
  push: AppliedPush,
  meta: CommandMeta,
): Promise<string | null> {
  const { marketplace, repo, policy, previousTip, newTip } = push;
  let pinned = false;
  try {
    const fastForward = previousTip === null || (await isAncestor(repo, previousTip, newTip));
    pinned = await pinPushed(repo, newTip);
    const { decision, position } = await runCommand(deps.store, publishDecider, streams.publish(marketplace.id), {
      type: 'record-push',
      data: {
        marketplaceId: marketplace.id,
        marketplace: marketplace.name,
        pushPolicy: policy,
        ref: publishedRef,
        previousTip,
        newTip,
        fastForward,
      },
      meta,
    });
    if (decision.outcome === 'refused') throw new PushNotRecorded(decision.rejection.detail);
    // Recorded is what counts: a ledger that lags is no reason to put main back.
    if (position !== null) {
      await deps.waiter
        .waitFor(position, ['ledger'])
        .catch((error: unknown) => log.warn({ err: error }, 'the ledger lags behind a recorded push'));
    }
    return null;
  } catch (error) {
    const pushLog = log.child({ marketplace: marketplace.name });
    pushLog.error({ err: error }, 'push not recorded: main is put back');
    await restoreRef(repo, publishedRef, previousTip, newTip).catch((undo: unknown) =>
      pushLog.error({ err: undo }, 'main could not be put back after an unrecorded push'),
    );
    if (pinned) await unpin(repo, newTip).catch(() => {});
    return error instanceof PushNotRecorded
      ? error.message
      : 'the gateway could not record the push on its ledger; nothing changed, push again later';
  }
}
