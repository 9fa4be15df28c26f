// Keys of features that are not built yet: accepted, warned about at startup ("not built yet: the setting
// has no effect"), marked by `gateway config` and in docs/configuration.md.
import { g, notBuilt, url } from './key-values.ts';
import { optionalText } from './key-spec.ts';

/** gateway.storage.object-store.* (the object-store value of gateway.storage.backend). */
export const objectStoreKeys = {
  bucket: optionalText(
    g('storage.object-store.bucket'),
    'Object-store bucket; required when gateway.storage.backend is object-store.',
    notBuilt,
  ),
  region: optionalText(
    g('storage.object-store.region'),
    'Object-store region; required when gateway.storage.backend is object-store.',
    notBuilt,
  ),
  endpoint: optionalText(
    g('storage.object-store.endpoint'),
    'Object-store endpoint URL for S3-compatible services; unset means the provider default.',
    { ...notBuilt, check: url },
  ),
  cacheDir: optionalText(
    g('storage.object-store.cache-dir'),
    'Local cache directory for object-store blobs; unset means no local cache.',
    notBuilt,
  ),
};
