// Tamper-evident ledger: every entry carries hash = SHA-256(prev_hash ‖ canonical JSON of the entry)
// computed by the ledger projection from the events (so a rebuild reproduces every hash) ... The leader signs the
// head ... `gateway audit verify FILE --public-key KEY` checks an exported NDJSON file offline and names the first
// entry that breaks the chain or a checkpoint (docs/audit.md). Editing one row of the ledger table by hand
// makes `gateway audit verify` name that entry; a rebuild reproduces every hash.
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactSign, compactVerify, generateKeyPair, importJWK } from 'jose';
import t, { type Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import { sql, trustedSql } from '../../../src/adapters/postgres/pool.ts';
import type { GatewayConfig } from '../../../src/adapters/config/schema.ts';
import { chainHash, genesisHash, type ChainedFields } from '../../../src/projections/ledger/ledger.chain.ts';
import { devSession } from '../../support/api.ts';
import { eventually } from '../../support/assert.ts';
import { startOnConfig, startTestGateway, testConfig, type TestGateway } from '../../support/gateway.ts';
import { receiver } from '../../support/receiver.ts';

const env = {
  GATEWAY_DEV_INSECURE_AUTH: 'true',
  GATEWAY_ROLES_ADMINS: 'root',
  GATEWAY_AUDIT_EXPORT_LAG: '0s',
  GATEWAY_AUDIT_EXPORT_POLL_INTERVAL: '50ms',
  GATEWAY_AUDIT_EXPORT_CHECKPOINT_INTERVAL: '100ms',
  GATEWAY_WEBHOOKS_POLL_INTERVAL: '50ms',
};

type ApiEntry = Omit<ChainedFields, 'actor_type' | 'marketplace_id' | 'token_id'> & {
  actorType: string;
  marketplaceId: number | null;
  tokenId: number | null;
  hash: string;
  prevHash: string;
};
type Checkpoint = { entryId: number; hash: string; signedAt: string; kid: string; jws: string };

/** The real CLI, as an auditor runs it on the files it downloaded; no database in its environment. */
function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['src/main.ts', ...args], {
    env: {
      ...process.env,
      GATEWAY_CONFIG: '',
      GATEWAY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, out })),
  );
}

/** Some ledger entries: role grants by an admin (spec, Events: role-granted). */
async function grant(t: Test, gw: TestGateway, n: number) {
  const root = devSession(gw, 'root');
  for (let i = 0; i < n; i++)
    t.equal((await root.post('/api/v1/roles', { principal: `watcher-${i}`, role: 'auditor' })).status, 201);
}

const head = async (gw: TestGateway) => (await devSession(gw, 'root').get('/api/v1/audit?limit=1')).body.entries[0];

/** Waits for a checkpoint that signs the current head; the checkpoints list. */
async function signedHead(gw: TestGateway): Promise<Checkpoint[]> {
  const { id } = await head(gw);
  return eventually(async () => {
    const list = (await devSession(gw, 'root').get('/api/v1/audit/checkpoints')).body.checkpoints as Checkpoint[];
    return list[0]?.entryId === id ? list : null;
  }, 10_000);
}

/** The export, the checkpoints and the public key as files, as an auditor downloads them. */
async function download(t: Test, gw: TestGateway, name: string) {
  const root = devSession(gw, 'root');
  const dir = t.testdir();
  const files = { ledger: join(dir, `${name}.ndjson`), checkpoints: join(dir, 'cp.json'), key: join(dir, 'key.jwk') };
  writeFileSync(files.ledger, (await root.get('/api/v1/audit/export?limit=10000')).text);
  writeFileSync(files.checkpoints, (await root.get('/api/v1/audit/checkpoints')).text);
  writeFileSync(files.key, (await root.get('/api/v1/audit/public-key')).text);
  return files;
}

const verify = (f: { ledger: string; checkpoints: string; key: string }) =>
  cli(['audit', 'verify', f.ledger, '--public-key', f.key, '--checkpoints', f.checkpoints]);

async function ledgerRows(gw: TestGateway) {
  return gw.core.pool.anyFirst(trustedSql(`select row_to_json(x)::text from ledger_entries x order by id`));
}

t.test('every entry chains to the one before; the export verifies offline; a forged checkpoint fails', async (t) => {
  const gw = await startTestGateway(t, env);
  await grant(t, gw, 6);
  const checkpoints = await signedHead(gw);
  const page = (await devSession(gw, 'root').get('/api/v1/audit')).body.entries as ApiEntry[];
  const oldestFirst = [...page].reverse();
  t.equal(oldestFirst[0]!.prevHash, genesisHash, 'entry 1 chains to the genesis hash (64 zeros)');
  for (const [i, e] of oldestFirst.entries()) {
    if (i > 0) t.equal(e.prevHash, oldestFirst[i - 1]!.hash, `entry ${e.id}: prevHash is the hash of the one before`);
    const exported = { ...e, actor_type: e.actorType, marketplace_id: e.marketplaceId, token_id: e.tokenId };
    t.equal(e.hash, chainHash(e.prevHash, exported), `entry ${e.id}: hash = SHA-256(prev_hash ‖ canonical JSON)`);
  }
  const key = (await devSession(gw, 'root').get('/api/v1/audit/public-key')).body;
  t.match(key, { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' }, 'the public key is an Ed25519 JWK');
  const verified = await compactVerify(checkpoints[0]!.jws, await importJWK(key, 'EdDSA'));
  t.same(JSON.parse(new TextDecoder().decode(verified.payload)).hash, page[0]!.hash, 'the checkpoint signs the head');
  t.equal((await devSession(gw, 'nobody').get('/api/v1/audit/checkpoints')).status, 403, 'auditor or admin only');

  const files = await download(t, gw, 'intact');
  const ok = await verify(files);
  t.equal(ok.code, 0, ok.out);
  t.match(ok.out, /chain intact over \d+ entries/);

  // A checkpoint signed by another key (same kid, same shape) does not verify with the gateway's public key.
  const { privateKey } = await generateKeyPair('Ed25519');
  const { entryId, hash, signedAt } = checkpoints[0]!;
  const forgedJws = await new CompactSign(new TextEncoder().encode(JSON.stringify({ entryId, hash, signedAt })))
    .setProtectedHeader({ alg: 'EdDSA', kid: checkpoints[0]!.kid, typ: 'gateway-ledger-checkpoint' })
    .sign(privateKey);
  writeFileSync(files.checkpoints, JSON.stringify({ checkpoints: [{ ...checkpoints[0], jws: forgedJws }] }));
  const forged = await verify(files);
  t.equal(forged.code, 1, 'a forged checkpoint fails verification');
  t.match(forged.out, /checkpoint 1 does not verify/);
});

t.test('a hand edit names that entry, a deleted row names the next, a rebuild reproduces every hash', async (t) => {
  const config: GatewayConfig = await testConfig(t, env);
  let gw = await startOnConfig(config);
  await grant(t, gw, 6);
  const checkpoints = await signedHead(gw);
  const before = await ledgerRows(gw);
  const publicKey = (await devSession(gw, 'root').get('/api/v1/audit/public-key')).body;
  // An Ed25519 key kept under the data directory; readable by the gateway's user only.
  t.equal(statSync(join(config.dataDir, 'audit-signing-key.jwk')).mode & 0o777, 0o600, 'the key file is 0600');
  await gw.close();

  // Read models are rebuilt from the events; the chain is computed from them, so it comes back.
  const rebuilt = await cli(['projections', 'rebuild'], {
    GATEWAY_DATABASE_URL: config.database.url!,
    GATEWAY_DATA_DIR: config.dataDir,
  });
  t.equal(rebuilt.code, 0, rebuilt.out);
  gw = await startOnConfig(config);
  t.teardown(() => gw.close());
  t.same(await ledgerRows(gw), before, 'every entry, hash and prev_hash included, is the same after a rebuild');
  t.same((await devSession(gw, 'root').get('/api/v1/audit/public-key')).body, publicKey, 'the key is generated once');
  t.same((await devSession(gw, 'root').get('/api/v1/audit/checkpoints')).body.checkpoints.at(-1), checkpoints.at(-1));

  const detail = await gw.core.pool.oneFirst(sql.unsafe`select detail from ledger_entries where id = 3`);
  await gw.core.pool.query(sql.unsafe`update ledger_entries set detail = 'nothing to see' where id = 3`);
  const edited = await verify(await download(t, gw, 'edited'));
  t.equal(edited.code, 1, 'an edited row breaks the chain');
  t.match(edited.out, /chain broken at entry 3 \(line 3\): its content does not hash to its hash/, edited.out);

  await gw.core.pool.query(sql.unsafe`update ledger_entries set detail = ${detail as string} where id = 3`);
  t.equal((await verify(await download(t, gw, 'restored'))).code, 0, 'the row put back verifies again');
  await gw.core.pool.query(sql.unsafe`delete from ledger_entries where id = 4`);
  const deleted = await verify(await download(t, gw, 'deleted'));
  t.equal(deleted.code, 1, 'a deleted row breaks the chain');
  t.match(deleted.out, /chain broken at entry 5 \(line 4\): follows entry 3/, deleted.out);
});

t.test('an edit that rewrites every later hash is caught by the signed checkpoint', async (t) => {
  const gw = await startTestGateway(t, env);
  await grant(t, gw, 4);
  // The first signed head at or after the edit is where the rewrite shows (docs/audit.md: what it proves).
  const first = Math.min(...(await signedHead(gw)).map((c) => c.entryId).filter((id) => id >= 2));
  await gw.core.pool.query(sql.unsafe`update ledger_entries set principal = 'someone-else' where id = 2`);
  // Rewrite the chain from entry 2 on, as someone with write access and the hashing code would.
  const rows = (await gw.core.pool.anyFirst(
    trustedSql(`select row_to_json(x) as r from ledger_entries x order by id`),
  )) as unknown as ChainedFields[];
  let prev = genesisHash;
  for (const r of rows) {
    const hash = chainHash(prev, { ...r, ts: new Date(r.ts).toISOString() });
    await gw.core.pool.query(
      sql.unsafe`update ledger_entries set hash = ${hash}, prev_hash = ${prev} where id = ${r.id}`,
    );
    prev = hash;
  }
  const result = await verify(await download(t, gw, 'rewritten'));
  t.equal(result.code, 1, 'the rewritten chain is consistent but disagrees with the signed head');
  t.match(result.out, new RegExp(`chain broken at entry ${first} .*differs from the checkpoint`), result.out);
});

t.test('every audit.batch carries the latest checkpoint', async (t) => {
  const gw = await startTestGateway(t, env);
  await grant(t, gw, 3);
  await signedHead(gw);
  const hook = await receiver(t);
  const root = devSession(gw, 'root');
  const { secret } = (await root.post('/api/v1/audit/sinks', { name: 'siem', url: hook.url })).body;
  await eventually(async () => hook.received.length >= 1, 10_000);
  const key = await importJWK((await root.get('/api/v1/audit/public-key')).body, 'EdDSA');
  for (const m of hook.received) {
    const batch = new Webhook(secret).verify(m.body, m.headers as Record<string, string>) as {
      data: { entries: Array<{ id: number; hash: string }>; checkpoint: Checkpoint | null };
    };
    t.ok(batch.data.checkpoint, 'the batch carries a checkpoint');
    const signed = await compactVerify(batch.data.checkpoint!.jws, key);
    const payload = JSON.parse(new TextDecoder().decode(signed.payload));
    t.equal(payload.entryId, batch.data.checkpoint!.entryId, 'signed by the gateway key');
    const entry = batch.data.entries.find((e) => e.id === payload.entryId);
    if (entry) t.equal(entry.hash, payload.hash, 'and it signs the hash the batch carries for that entry');
  }
});
