import t from 'tap';
import { objectStore } from '../../support/replicas.ts';
import { startS3 } from '../../support/s3.ts';
import { replicaScenarios } from './replica-scenarios.ts';

// Tests run two gateway processes on one PostgreSQL [...] and one bucket: the bucket on a
// real S3-compatible server (s3rver) started by the test, a cache of its own under each replica's data dir.
t.setTimeout(300_000);
replicaScenarios('object store', async (t) => {
  const s3 = await startS3(t);
  return () => objectStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint });
});
