import type pg from 'pg';

/** Connects `client`; one that cannot connect is ended (its socket released) and the error thrown. */
export async function connectOrEnd(client: pg.Client): Promise<pg.Client> {
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}
