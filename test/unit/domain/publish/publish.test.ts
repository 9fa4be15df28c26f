import t from 'tap';
import { publishDecider, type RecordPush } from '../../../../src/domain/publish/publish.decider.ts';
import type { PublishEvent } from '../../../../src/domain/publish/publish.events.ts';
import { publishedRef, pushChecks, refusePush } from '../../../../src/domain/publish/push-rules.ts';
import { at, meta, pushed as pushedEvent, sha } from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const a = sha('a');
const b = sha('b');

const recordPush = (data: Partial<RecordPush['data']> = {}): RecordPush => ({
  type: 'record-push',
  data: {
    marketplaceId: 7,
    marketplace: 'team',
    pushPolicy: 'append-only',
    ref: publishedRef,
    previousTip: a,
    newTip: b,
    fastForward: true,
    ...data,
  },
  meta: meta({ principal: 'alice', at }),
});
const pushed = (previousTip: string | null, newTip: string): PublishEvent =>
  pushedEvent({ ref: publishedRef, previousTip, newTip });

t.test('a fast-forward push is recorded with both tips, not forced', async (t) => {
  const decision = spec(publishDecider)
    .given([pushed(null, a)])
    .when(recordPush());
  t.strictSame(decision, {
    outcome: 'accepted',
    events: [
      {
        type: 'marketplace-pushed',
        data: {
          marketplaceId: 7,
          marketplace: 'team',
          ref: publishedRef,
          previousTip: a,
          newTip: b,
          forced: false,
          pushPolicy: 'append-only',
          pushedAt: at,
        },
      },
    ],
  });
});

t.test('the first push has no previous tip', async (t) => {
  const decision = spec(publishDecider)
    .given([])
    .when(recordPush({ previousTip: null }));
  t.match(decision, { outcome: 'accepted', events: [{ data: { previousTip: null, newTip: b, forced: false } }] });
});

t.test('spec: allow-rewrite accepts a rewrite and records it as forced with both tips', async (t) => {
  const decision = spec(publishDecider)
    .given([pushed(null, a)])
    .when(recordPush({ pushPolicy: 'allow-rewrite', fastForward: false }));
  t.match(decision, {
    outcome: 'accepted',
    events: [
      { type: 'marketplace-pushed', data: { previousTip: a, newTip: b, forced: true, pushPolicy: 'allow-rewrite' } },
    ],
  });
});

t.test('spec: append-only never records a rewrite (the handler then puts main back)', async (t) => {
  const decision = spec(publishDecider)
    .given([pushed(null, a)])
    .when(recordPush({ fastForward: false }));
  t.match(decision, { outcome: 'refused', rejection: { code: 'conflict', detail: /append-only/ } });
  t.strictSame(decision.events, []);
});

t.test('evolve keeps the last recorded tip', async (t) => {
  const state = [pushed(null, a), pushed(a, b)].reduce(publishDecider.evolve, publishDecider.initialState());
  t.strictSame(state, { tip: b });
});

t.test('push rules: only refs/heads/main, never deleted; a push is taken whole', async (t) => {
  t.strictSame(
    pushChecks.map((check) => check.name),
    ['only-main', 'no-deletion'],
    'the checks, in order',
  );
  t.strictSame(refusePush([{ ref: publishedRef, oldSha: a, newSha: b }]), [], 'an update of main');
  t.strictSame(refusePush([{ ref: publishedRef, oldSha: null, newSha: b }]), [], 'the creation of main');
  t.strictSame(refusePush([]), [], 'nothing to refuse');
  t.strictSame(refusePush([{ ref: publishedRef, oldSha: a, newSha: null }]), [
    { ref: publishedRef, reason: 'refs/heads/main of a hosted marketplace cannot be deleted' },
  ]);
  t.strictSame(
    refusePush([{ ref: 'refs/heads/feature', oldSha: null, newSha: null }]),
    [{ ref: 'refs/heads/feature', reason: 'only refs/heads/main can be pushed to a hosted marketplace' }],
    'the first refusal wins',
  );
  for (const ref of ['refs/heads/Main', 'refs/heads/main/x', 'refs/tags/v1', `refs/quarantine/${a}`, 'main', 'HEAD']) {
    t.match(refusePush([{ ref, oldSha: null, newSha: b }]), [{ ref, reason: /only refs\/heads\/main/ }], ref);
  }
  t.strictSame(
    refusePush([
      { ref: publishedRef, oldSha: a, newSha: b },
      { ref: 'refs/tags/v1', oldSha: null, newSha: b },
    ]),
    [
      { ref: publishedRef, reason: 'not applied: another ref of the same push was refused' },
      { ref: 'refs/tags/v1', reason: 'only refs/heads/main can be pushed to a hosted marketplace' },
    ],
  );
});
