import type { Test } from 'tap';
import { loadConfig } from '../../src/adapters/config/load.ts';
import type { GatewayConfig } from '../../src/adapters/config/schema.ts';
import { startGateway, type CoreOptions, type Gateway } from '../../src/gateway.ts';
import { silentLogger } from './core.ts';
import { testDatabase } from './database.ts';

/** A configuration as an operator would write it, on the test's own database and data dir, port 0. */
export async function testConfig(t: Test, env: Record<string, string> = {}): Promise<GatewayConfig> {
  const { url } = await testDatabase(t);
  return loadConfig({
    env: {
      GATEWAY_DATABASE_URL: url,
      GATEWAY_DATA_DIR: t.testdir(),
      PORT: '0',
      GATEWAY_LOG_LEVEL: 'silent',
      // Tests judge what a command does, not how fast the read models follow it on a loaded machine
      // (the benchmarks measure that): a command waits up to 30 s before answering projection-lag.
      GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '30s',
      ...env,
    },
    cwd: process.cwd(),
  });
}

export type TestGateway = Gateway & {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Waits until every read model has caught up with everything appended so far. */
  settled(): Promise<void>;
};

/**
 * Waits for the read models, then the catalog build an approval schedules (it follows the answer; bounded, as a
 * build may keep failing), then what that build recorded.
 */
export async function settledOf(gateway: Gateway): Promise<void> {
  await gateway.waiter.waitFor(await gateway.core.store.head());
  await Promise.race([gateway.core.catalog?.idle(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  await gateway.waiter.waitFor(await gateway.core.store.head());
}

/**
 * A gateway started on a configuration the test keeps, for tests that stop and start it again on the same
 * database and data directory; the caller closes it.
 */
export async function startOnConfig(config: GatewayConfig, options: CoreOptions = {}): Promise<TestGateway> {
  const gateway = await startGateway(config, silentLogger, options);
  return {
    ...gateway,
    fetch: (path, init) => fetch(`${gateway.url}${path}`, init),
    settled: () => settledOf(gateway),
  };
}

/** A started gateway (black box over HTTP), closed at the end of the test. */
export async function startTestGateway(
  t: Test,
  env: Record<string, string> = {},
  options: CoreOptions = {},
): Promise<TestGateway> {
  const gateway = await startOnConfig(await testConfig(t, env), options);
  t.teardown(() => gateway.close());
  return gateway;
}
