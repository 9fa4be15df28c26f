import t from 'tap';
import type { RecordedEvent } from '../../../src/adapters/eventstore/port.ts';
import { asDomainEvent, dispatch } from '../../../src/projections/runner/dispatch.ts';

let position = 0n;
const recorded = (type: string, data: unknown): RecordedEvent => ({
  id: 'e',
  streamId: 's-1',
  revision: 0n,
  position: ++position,
  type,
  data,
  recordedAt: '2026-03-01T10:00:00.123Z',
  metadata: { principal: 'alice', actorType: 'human', correlationId: 'c', at: '2026-03-01T10:00:00.000Z' },
});

t.test('each event goes to the handler of its type, in order, each awaited before the next', async (t) => {
  const seen: string[] = [];
  const apply = dispatch<string[]>({
    'token-used': async (log, event) => {
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`used ${event.data.tokenId} at ${event.position}`);
    },
    'role-revoked': (log, event) => {
      log.push(`revoked ${event.data.grantId} by ${event.metadata.principal}`);
    },
  });
  await apply(seen, [
    recorded('token-used', { tokenId: 5, usedAt: 'x' }),
    recorded('role-revoked', { grantId: 2 }),
    recorded('token-used', { tokenId: 6, usedAt: 'y' }),
  ]);
  t.strictSame(seen, ['used 5 at 1', 'revoked 2 by alice', 'used 6 at 3']);
});

t.test('types without a handler, unknown types and names of Object.prototype are skipped', async (t) => {
  const seen: number[] = [];
  const apply = dispatch<number[]>({
    'token-used': (log, event) => {
      log.push(event.data.tokenId);
    },
  });
  await apply(seen, [
    recorded('role-granted', { grantId: 1 }),
    recorded('something-from-the-future', {}),
    recorded('constructor', {}),
    recorded('toString', {}),
    recorded('token-used', { tokenId: 9, usedAt: 'x' }),
  ]);
  t.strictSame(seen, [9]);
});

t.test('asDomainEvent: the recorded event itself for a known type, null otherwise', async (t) => {
  const known = recorded('token-used', { tokenId: 1, usedAt: 'x' });
  t.equal(asDomainEvent(known), known);
  t.equal(asDomainEvent(recorded('something-from-the-future', {})), null);
});
