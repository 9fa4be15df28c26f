import t from 'tap';
import {
  auditSinksDecider as decider,
  type CreateAuditSink,
  type DeleteAuditSink,
  type SetAuditSinkCursor,
  type UpdateAuditSink,
} from '../../../../src/domain/webhook/audit-sink.decider.ts';
import { targetLedgerDetail } from '../../../../src/domain/webhook/webhook.events.ts';
import { command } from '../../../support/builders.ts';

const create = (data: Partial<CreateAuditSink['data']> = {}) =>
  command<CreateAuditSink>(
    'create-audit-sink',
    {
      sinkId: 3,
      name: 'siem',
      url: 'https://siem.example.test/in',
      sealedSecret: 'v1.sealed',
      allowedSchemes: ['https'],
      ...data,
    },
    { principal: 'root' },
  );
const remove = (sinkId: number) => command<DeleteAuditSink>('delete-audit-sink', { sinkId }, { principal: 'root' });
const cursor = (sinkId: number, position: number, ledgerHead = 100) =>
  command<SetAuditSinkCursor>('set-audit-sink-cursor', { sinkId, position, ledgerHead }, { principal: 'root' });

const update = (data: Omit<UpdateAuditSink['data'], 'sinkId'>, sinkId = 3) =>
  command<UpdateAuditSink>('update-audit-sink', { sinkId, ...data }, { principal: 'root' });

const withSink = () =>
  decider.evolve(decider.initialState(), decider.decide(create(), decider.initialState()).events[0]!);

t.test('create: enabled, the acting admin, the secret only sealed', async (t) => {
  t.match(decider.decide(create(), decider.initialState()), {
    outcome: 'accepted',
    events: [
      {
        type: 'audit-sink-created',
        data: { sinkId: 3, name: 'siem', enabled: true, createdBy: 'root', sealedSecret: 'v1.sealed' },
      },
    ],
  });
});

t.test('create refusals: bad name 422, trust boundary 400, name taken 409', async (t) => {
  // Body has a name (^[a-z0-9][a-z0-9_-]*$) and a target URL; ... 400 disallowed scheme; 409 name taken; 422 bad name
  for (const name of ['Siem', '-siem', '', 'si em', 'siem/x']) {
    t.match(
      decider.decide(create({ name }), decider.initialState()),
      { outcome: 'refused', rejection: { code: 'invalid-name' } },
      name,
    );
  }
  for (const url of ['http://siem.example.test/in', 'https://u:p@siem.example.test/in', 'nonsense']) {
    t.match(
      decider.decide(create({ url }), decider.initialState()),
      { outcome: 'refused', rejection: { code: 'trust-boundary' } },
      url,
    );
  }
  t.match(decider.decide(create({ sinkId: 4 }), withSink()), { outcome: 'refused', rejection: { code: 'conflict' } });
  t.match(decider.decide(create({ sinkId: 4, name: 'siem-2' }), withSink()), { outcome: 'accepted' });
});

t.test('delete and cursor: 404 for an unknown sink; the name is free again after a deletion', async (t) => {
  t.match(decider.decide(remove(9), withSink()), { outcome: 'refused', rejection: { code: 'not-found' } });
  t.match(decider.decide(cursor(9, 0), withSink()), { outcome: 'refused', rejection: { code: 'not-found' } });
  t.match(decider.decide(cursor(3, 42), withSink()), {
    outcome: 'accepted',
    events: [{ type: 'audit-sink-cursor-set', data: { sinkId: 3, name: 'siem', position: 42 } }],
  });
  t.match(decider.decide(cursor(3, 100, 100), withSink()), { outcome: 'accepted' }, 'at the head: accepted');
  t.match(
    decider.decide(cursor(3, 101, 100), withSink()),
    {
      outcome: 'refused',
      rejection: {
        code: 'invalid-request',
        detail: /past the ledger's head, entry 100/,
        extensions: { ledgerHead: 100 },
      },
      events: [],
    },
    'past the head: 422, nothing recorded (decision 357)',
  );
  const deleted = decider.decide(remove(3), withSink());
  t.match(deleted, {
    outcome: 'accepted',
    events: [{ type: 'audit-sink-deleted', data: { sinkId: 3, name: 'siem' } }],
  });
  const after = decider.evolve(withSink(), deleted.events[0]!);
  t.match(decider.decide(create({ sinkId: 5 }), after), { outcome: 'accepted' });
});

t.test('the ledger detail never carries the secret', async (t) => {
  const [created] = decider.decide(create(), decider.initialState()).events;
  t.equal(targetLedgerDetail(created!), "audit sink 3 'siem': https://siem.example.test/in");
  t.equal(
    targetLedgerDetail(decider.decide(cursor(3, 42), withSink()).events[0]!),
    "audit sink 3 'siem': cursor set to 42",
  );
});

t.test('update: what is given changes, the rest stays; no change, no event; 404 for an unknown sink', async (t) => {
  t.match(decider.decide(create({ enabled: false, batchSize: 7 }), decider.initialState()), {
    events: [{ type: 'audit-sink-created', data: { enabled: false, batchSize: 7 } }],
  });
  t.match(decider.decide(create(), decider.initialState()), {
    events: [{ type: 'audit-sink-created', data: { enabled: true, batchSize: null } }],
  });
  t.match(decider.decide(update({ enabled: false }), withSink()), {
    outcome: 'accepted',
    events: [{ type: 'audit-sink-updated', data: { sinkId: 3, name: 'siem', enabled: false, batchSize: null } }],
  });
  const sized = decider.evolve(withSink(), decider.decide(update({ batchSize: 9 }), withSink()).events[0]!);
  t.match(decider.decide(update({ enabled: false }), sized), {
    events: [{ data: { enabled: false, batchSize: 9 } }],
  });
  t.match(decider.decide(update({ batchSize: null }), sized), {
    events: [{ data: { enabled: true, batchSize: null } }],
  });
  t.strictSame(decider.decide(update({ batchSize: 9, enabled: true }), sized), { outcome: 'accepted', events: [] });
  t.match(decider.decide(update({ enabled: true }, 9), withSink()), {
    outcome: 'refused',
    rejection: { code: 'not-found' },
  });
});
