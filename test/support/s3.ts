import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { Test } from 'tap';
import { Bucket } from '../../src/adapters/storage/bucket.ts';

// s3rver checks request signatures against this fixed pair; the gateway reads it through the AWS SDK's
// default chain (the environment), as it reads real credentials.
process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';

export type TestS3 = Readonly<{
  endpoint: string;
  bucket: string;
  /** The gateway's settings for this bucket (gateway.storage.*), as environment variables. */
  env(cacheDir: string): Record<string, string>;
  /** A client of the bucket for the test's own reads and deletions. */
  client: Bucket;
  close(): Promise<void>;
}>;

/** A real S3-compatible server (s3rver, on loopback, files in a temporary directory) with one bucket. */
export async function startS3(t: Test | null, bucket = 'gateway-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'gw-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new Bucket({ bucket, region: 'us-east-1', endpoint });
  const close = async () => {
    client.close();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  };
  t?.teardown(close);
  return {
    endpoint,
    bucket,
    client,
    close,
    env: (cacheDir) => ({
      GATEWAY_STORAGE_BACKEND: 'object-store',
      GATEWAY_STORAGE_OBJECT_STORE_BUCKET: bucket,
      GATEWAY_STORAGE_OBJECT_STORE_REGION: 'us-east-1',
      GATEWAY_STORAGE_OBJECT_STORE_ENDPOINT: endpoint,
      GATEWAY_STORAGE_OBJECT_STORE_CACHE_DIR: cacheDir,
    }),
  };
}
