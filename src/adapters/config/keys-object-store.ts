// gateway.storage.object-store.*: the bucket the git store lives in when gateway.storage.backend is
// object-store (src/adapters/storage/). Credentials come from the AWS SDK's default chain (environment
// variables AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, shared config files and
// profiles, web identity, container and instance roles), never from the gateway's configuration.
import { g, url } from './key-values.ts';
import { duration, optionalText } from './key-spec.ts';

/** gateway.storage.object-store.* (the object-store value of gateway.storage.backend). */
export const objectStoreKeys = {
  bucket: optionalText(
    g('storage.object-store.bucket'),
    'Object-store bucket holding the git store (packs and manifests); required when gateway.storage.backend is object-store.',
  ),
  region: optionalText(
    g('storage.object-store.region'),
    'Object-store region; required when gateway.storage.backend is object-store. Credentials come from the AWS SDK chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles, roles).',
  ),
  endpoint: optionalText(
    g('storage.object-store.endpoint'),
    'Object-store endpoint URL for S3-compatible services (path-style addressing); unset means the AWS endpoint of the region.',
    { check: url },
  ),
  cacheDir: optionalText(
    g('storage.object-store.cache-dir'),
    "This replica's local cache of the git store (bare repositories git serves from); unset means <data-dir>/git-cache.",
  ),
  pollIntervalMs: duration(
    g('storage.object-store.poll-interval'),
    '5s',
    'How often a replica checks the bucket for repositories changed by another replica when no PostgreSQL notification came.',
    { positive: true },
  ),
};
