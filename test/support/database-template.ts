// The test run's template database: every migration applied and every read model created once, by a gateway
// started on it and closed. Each test's database is a copy of it (testDatabase), so a test starts on a migrated
// schema rather than migrating an empty database (about half of a test gateway's start). It holds no event.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/adapters/config/load.ts';
import { startGateway } from '../../src/gateway.ts';
import { withDatabase } from './database.ts';

async function admin(serverUrl: string, statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows.length;
  } finally {
    await client.end();
  }
}

/** Creates the template on the server and answers its name and how to drop it. */
export async function createTemplateDatabase(serverUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `template_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `create database ${name}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-template-'));
  try {
    const config = loadConfig({
      env: {
        GATEWAY_DATABASE_URL: withDatabase(serverUrl, name),
        GATEWAY_DATA_DIR: dataDir,
        PORT: '0',
        GATEWAY_LOG_LEVEL: 'silent',
        GATEWAY_LOCAL_IDP_ENABLED: 'false',
      },
      cwd: process.cwd(),
    });
    const gateway = await startGateway(config, pino({ level: 'silent' }));
    await gateway.waiter.waitFor(await gateway.core.store.head());
    await gateway.close();
    const events = await admin(withDatabase(serverUrl, name), 'select 1 from es.events limit 1');
    if (events !== 0) throw new Error('a gateway start appended events: the template would not be empty');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { name, drop: async () => void (await admin(serverUrl, `drop database if exists ${name} with (force)`)) };
}
