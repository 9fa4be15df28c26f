import t from 'tap';
import { GenericContainer, Wait, getContainerRuntimeClient } from 'testcontainers';
import { EventStoreDbEventStore } from '../../../src/adapters/eventstore/eventstoredb/eventstoredb-event-store.ts';
import { eventStoreContract } from './contract.ts';

const skipReason = 'no EventStoreDB: set EVENTSTORE_TEST_URL or provide a Docker engine for testcontainers';

type Server = Readonly<{ url: string; stop(): Promise<void> }>;

async function findServer(): Promise<Server | null> {
  const url = process.env.EVENTSTORE_TEST_URL;
  if (url) return { url, stop: async () => {} };
  try {
    await getContainerRuntimeClient(); // rejects within milliseconds when there is no Docker engine
  } catch {
    return null;
  }
  // With a Docker engine present, a container that fails to start is a failure, not a reason to skip.
  const container = await new GenericContainer('eventstore/eventstore:24.10')
    .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
    .withExposedPorts(2113)
    // An open port comes before the node is leader; /health/live answers only once it serves requests.
    .withWaitStrategy(
      Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300),
    )
    .withStartupTimeout(120_000)
    .start();
  return {
    url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

async function untilReachable(store: EventStoreDbEventStore, ms = 60_000): Promise<void> {
  for (const deadline = Date.now() + ms; ;) {
    try {
      await store.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

const server = await findServer();
if (server) {
  t.teardown(() => server.stop());
  t.test('EventStoreDB contract', async (t) => {
    const probe = await EventStoreDbEventStore.connect(server.url);
    await untilReachable(probe).finally(() => probe.close());
    eventStoreContract(t, async (t) => {
      const store = await EventStoreDbEventStore.connect(server.url);
      t.teardown(() => store.close());
      return store;
    });
  });
} else {
  console.log(`# EventStoreDB contract skipped: ${skipReason}`);
  t.test('EventStoreDB contract', { skip: skipReason }, async () => {});
}

// Runs everywhere: /actuator/health relies on ping() failing when the server is gone. How soon it
// fails is measured by the timings benchmark (bench/timings.ts); tap's own timeout bounds a hang here.
t.test('ping rejects when the server is unreachable', async (t) => {
  const store = await EventStoreDbEventStore.connect('esdb://127.0.0.1:1?tls=false');
  await t.rejects(store.ping(), 'ping rejects');
  await store.close();
});
