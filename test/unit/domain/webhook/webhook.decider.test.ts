import t from 'tap';
import { outboundOf } from '../../../../src/domain/webhook/outbound.ts';
import { backoffAfter } from '../../../../src/domain/webhook/signed-endpoint.ts';
import {
  webhookSubscribersDecider as decider,
  type CreateSubscriber,
  type DeleteSubscriber,
} from '../../../../src/domain/webhook/webhook.decider.ts';
import { command } from '../../../support/builders.ts';

const create = (data: Partial<CreateSubscriber['data']> = {}) =>
  command<CreateSubscriber>(
    'create-webhook-subscriber',
    {
      subscriberId: 7,
      url: 'https://receiver.example.test/hook',
      events: ['catalog.rebuilt', 'catalog.rebuilt'],
      description: null,
      sealedSecret: 'v1.sealed',
      allowedSchemes: ['https'],
      ...data,
    },
    { principal: 'root' },
  );
const remove = (subscriberId: number) =>
  command<DeleteSubscriber>('delete-webhook-subscriber', { subscriberId }, { principal: 'root' });

t.test('create: the acting admin, enabled, each kind once', async (t) => {
  const decision = decider.decide(create(), decider.initialState());
  t.match(decision, {
    outcome: 'accepted',
    events: [
      {
        type: 'webhook-subscriber-created',
        data: {
          subscriberId: 7,
          events: ['catalog.rebuilt'],
          enabled: true,
          createdBy: 'root',
          sealedSecret: 'v1.sealed',
        },
      },
    ],
  });
});

t.test('create refusals: 400 at the trust boundary, 422 for the event list', async (t) => {
  for (const [data, code] of [
    [{ url: 'http://receiver.example.test/hook' }, 'trust-boundary'],
    [{ url: 'https://u:p@receiver.example.test/hook' }, 'trust-boundary'],
    [{ events: [] }, 'invalid-request'],
    [{ events: ['catalog.rebuilt', 'nope'] }, 'invalid-request'],
    [{ events: ['audit.batch'] }, 'invalid-request'],
  ] as const) {
    t.match(decider.decide(create(data), decider.initialState()), { outcome: 'refused', rejection: { code } });
  }
});

t.test('delete: 404 unless the subscriber exists; then it is gone', async (t) => {
  t.match(decider.decide(remove(7), decider.initialState()), { outcome: 'refused', rejection: { code: 'not-found' } });
  const created = decider.decide(create(), decider.initialState());
  if (created.outcome !== 'accepted') throw new Error('created');
  const state = created.events.reduce(decider.evolve, decider.initialState());
  const deleted = decider.decide(remove(7), state);
  t.match(deleted, {
    outcome: 'accepted',
    events: [{ type: 'webhook-subscriber-deleted', data: { subscriberId: 7 } }],
  });
  if (deleted.outcome !== 'accepted') throw new Error('deleted');
  const after = deleted.events.reduce(decider.evolve, state);
  t.match(decider.decide(remove(7), after), { outcome: 'refused' });
});

t.test('spec, Limits: attempt n is followed by base * 2^(n-1), capped', async (t) => {
  t.strictSame(
    [1, 2, 3, 4, 5, 10, 40].map((n) => backoffAfter(n, 10_000, 3_600_000)),
    [10_000, 20_000, 40_000, 80_000, 160_000, 3_600_000, 3_600_000],
  );
});

t.test('outbound kinds: every revocation, and nothing for events no one subscribes to', async (t) => {
  const revoked = {
    type: 'snapshot-revoked',
    data: {
      snapshotId: 3,
      marketplaceId: 1,
      marketplace: 'acme',
      sha: 'a'.repeat(40),
      reason: 'marketplace removed: retired',
      administrative: true,
      revokedAt: '2026-01-01T00:00:00.000Z',
      revokedBy: 'root',
    },
  } as const;
  t.match(outboundOf(revoked), { kind: 'marketplace.snapshot.revoked', data: { snapshotId: 3, administrative: true } });
  t.equal(outboundOf({ type: 'policy-rule-deleted', data: { ruleId: 1, name: 'x' } }), null);
});
