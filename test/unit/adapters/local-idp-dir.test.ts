// The built-in issuer keeps its files in <data-dir>/local-idp, mode 0700. A data directory it creates must
// keep the usual mode: made 0700, the embedded PostgreSQL (run as the postgres user when the gateway runs as
// root) could not reach <data-dir>/postgres and `npm start` failed on a fresh clone.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ensureLocalIdpDir, localIdpDir } from '../../../src/adapters/identity/local-idp/password.ts';

t.test('the issuer directory is private, the data directory it creates is not', async (t) => {
  const dataDir = join(t.testdir(), 'fresh', 'data');
  ensureLocalIdpDir(dataDir);
  const mode = (path: string) => statSync(path).mode & 0o777;
  t.equal(mode(localIdpDir(dataDir)), 0o700);
  const umask = process.umask();
  t.equal(mode(dataDir), 0o777 & ~umask, 'the data directory gets the process umask, as any other directory');
  t.equal(mode(join(dataDir, '..')), 0o777 & ~umask);
});
