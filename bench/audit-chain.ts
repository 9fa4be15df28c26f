// Tamper-evident ledger: verification speed of an exported ledger (target ≥ 200,000 entries/s) and the cost
// of hashing on ledger projection throughput (target ≤ 10 % slower).
//
// 1. Verification: an export of BENCH_CHAIN_ENTRIES entries (default 1,000,000) generated with the projection's own
//    code (ledgerRows, ledger.chain.ts) and written as GET /api/v1/audit/export writes lines (exportEntry), with a
//    signed checkpoint every 100,000 entries and at the head (the leader's signHead, a fresh Ed25519 key). Timed: the
//    real CLI, `node --import tsx src/main.ts audit verify FILE --public-key KEY --checkpoints FILE`, wall clock
//    including process start, and the same verification in process (ChainVerifier) without it.
// 2. Projection cost: the ledger projection's apply (ledgerProjectionOf) on one embedded PostgreSQL, in
//    transactions of BENCH_CHAIN_BATCH events (default 500, gateway.projections.batch-size), on
//    BENCH_CHAIN_PROJECTED entries (default 100,000: 80 % upload-pack of 4 wants, 20 % info-refs, as bench/audit.ts)
//    with hashing on and off (the switch only this bench uses), BENCH_CHAIN_ROUNDS rounds (default 7) alternating,
//    tables recreated before each; the figure is the median of the rounds' ratio. Beside it, the hashing compute
//    alone (ledgerRows with hashing on minus off, in process) over the median plain apply time: the same cost
//    without the database's noise on a shared machine.
// Writes bench/results/audit-chain.json and .md.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { exportJWK, generateKeyPair, calculateJwkThumbprint } from 'jose';
import type { RecordedEvent } from '../src/adapters/eventstore/port.ts';
import { openPool, trustedSql, type DatabasePool } from '../src/adapters/postgres/pool.ts';
import { signHead } from '../src/application/audit/checkpoint.duty.ts';
import { exportEntry } from '../src/application/outbound/audit-sink-push.duty.ts';
import { ChainVerifier, verifyCheckpoints } from '../src/application/audit/verify.use-case.ts';
import { genesisHash } from '../src/projections/ledger/ledger.chain.ts';
import type { LedgerDraft } from '../src/projections/ledger/ledger.fields.ts';
import { ledgerProjectionOf, ledgerRows } from '../src/projections/ledger/ledger.projection.ts';
import { openBenchDatabase } from './database.ts';
import { envInt, log } from './env.ts';
import { seededRandom } from './events.ts';
import { figure, figureMarkdown, figureTable, fmt, machine, writeResultFiles, type Figure } from './report.ts';

const config = () => ({
  entries: envInt('BENCH_CHAIN_ENTRIES', 1_000_000, 1000),
  projected: envInt('BENCH_CHAIN_PROJECTED', 100_000, 1000),
  batch: envInt('BENCH_CHAIN_BATCH', 500, 1),
  rounds: envInt('BENCH_CHAIN_ROUNDS', 7, 1),
});

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const hexOf = (random: () => number, n: number) =>
  Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');

/** Drafts as the mapping gives them for facade fetches: 20 % info-refs, else one entry per want of 4. */
function* drafts(count: number): Generator<LedgerDraft> {
  const random = seededRandom(21);
  const t0 = Date.parse('2026-11-01T00:00:00.000Z');
  for (let i = 0; i < count; i++) {
    const info = random() < 0.2;
    yield {
      position: BigInt(i + 1),
      ts: new Date(t0 + i * 7).toISOString(),
      source: `10.${i % 256}.${(i >> 8) % 256}.1`,
      principal: `user${i % 300}@example.com`,
      actorType: 'human',
      marketplace: `market-${i % 50}`,
      marketplaceId: 1 + (i % 50),
      event: info ? 'info-refs' : 'upload-pack',
      ref: info ? 'refs/heads/main' : `refs/tags/v1.${i % 30}.0`,
      sha: hexOf(random, 40),
      detail: null,
      tokenId: 1 + (i % 2000),
      credential_kind: 'pat',
    };
  }
}

type Export = { file: string; checkpoints: string; key: string; bytes: number; heads: number };

/** The export file, the checkpoints endpoint's body and the public JWK, as an auditor downloads them. */
async function writeExport(dir: string, count: number): Promise<Export> {
  const { privateKey, publicKey } = await generateKeyPair('Ed25519', { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const key = { privateKey, kid, publicJwk: { ...jwk, kid, alg: 'EdDSA', use: 'sig' } };
  const file = join(dir, 'ledger.ndjson');
  const out = createWriteStream(file);
  const checkpoints: object[] = [];
  let chunk: LedgerDraft[] = [];
  let last = { id: 0, hash: genesisHash };
  const flush = async () => {
    const rows = ledgerRows(chunk, last.id, last.hash);
    const text = rows
      .map((r) =>
        JSON.stringify(
          exportEntry({
            ...r,
            actorType: r.actor_type,
            marketplaceId: r.marketplace_id,
            tokenId: r.token_id,
            prevHash: r.prev_hash,
          }),
        ),
      )
      .join('\n');
    if (!out.write(`${text}\n`)) await once(out, 'drain');
    const end = rows.at(-1)!;
    last = { id: end.id, hash: end.hash };
    if (last.id % 100_000 === 0 || last.id === count) {
      const signedAt = new Date().toISOString();
      const head = { entryId: last.id, hash: last.hash };
      checkpoints.unshift({ ...head, signedAt, kid, jws: await signHead(key, head, signedAt) });
    }
    chunk = [];
  };
  for (const draft of drafts(count)) {
    chunk.push(draft);
    if (chunk.length === 10_000) await flush();
  }
  if (chunk.length > 0) await flush();
  out.end();
  await once(out, 'finish');
  const checkpointsFile = join(dir, 'checkpoints.json');
  writeFileSync(checkpointsFile, JSON.stringify({ checkpoints }));
  const keyFile = join(dir, 'public-key.jwk');
  writeFileSync(keyFile, JSON.stringify(key.publicJwk));
  return { file, checkpoints: checkpointsFile, key: keyFile, bytes: statSync(file).size, heads: checkpoints.length };
}

/** The real CLI on the export: wall-clock milliseconds, exit code and its line. */
async function cliVerify(x: Export): Promise<{ ms: number; code: number | null; out: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main.ts',
      'audit',
      'verify',
      x.file,
      '--public-key',
      x.key,
      '--checkpoints',
      x.checkpoints,
    ],
    { env: { ...process.env, GATEWAY_CONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { ms: performance.now() - started, code, out: out.trim() };
}

/** The same verification in this process (no process start, no tsx load): milliseconds. */
async function inProcessVerify(x: Export): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const started = performance.now();
  const cps = (JSON.parse(readFileSync(x.checkpoints, 'utf8')) as { checkpoints: Array<{ jws: string }> }).checkpoints;
  const verified = await verifyCheckpoints(cps, JSON.parse(readFileSync(x.key, 'utf8')));
  if ('failure' in verified) throw new Error(verified.failure.reason);
  const verifier = new ChainVerifier(verified.heads);
  let line = 0;
  let rest = '';
  for await (const chunk of (await import('node:fs')).createReadStream(x.file, {
    encoding: 'utf8',
    highWaterMark: 1 << 20,
  })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop() ?? '';
    for (const text of lines) if (verifier.feed(text, ++line)) throw new Error(`break at line ${line}`);
  }
  return performance.now() - started;
}

/** Events of the projection run: the drafts' facade fetches as the store records them (one entry per want). */
function events(entries: number): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  const random = seededRandom(7);
  let made = 0;
  for (let i = 0; made < entries; i++) {
    const info = random() < 0.2 || entries - made < 4;
    const m = 1 + (i % 50);
    const metadata = {
      principal: `user${i % 300}@example.com`,
      actorType: 'human' as const,
      correlationId: `c${i}`,
      source: `10.0.${i % 256}.1`,
      credentialId: 1 + (i % 2000),
      at: '2026-11-01T00:00:00.000Z',
    };
    const data = info
      ? {
          marketplaceId: m,
          marketplace: `market-${m}`,
          ref: 'refs/heads/main',
          sha: hexOf(random, 40),
          credentialKind: 'pat',
        }
      : {
          marketplaceId: m,
          marketplace: `market-${m}`,
          credentialKind: 'pat',
          wants: Array.from({ length: 4 }, (_, w) => ({
            sha: hexOf(random, 40),
            ref: w === 0 ? 'refs/heads/main' : `refs/tags/v1.${w}.0`,
          })),
        };
    made += info ? 1 : 4;
    out.push({
      id: `e${i}`,
      streamId: `access-${m}`,
      revision: BigInt(i),
      position: BigInt(i + 1),
      type: info ? 'info-refs' : 'upload-pack',
      data,
      metadata,
      recordedAt: new Date(Date.parse('2026-11-01T00:00:00.000Z') + i).toISOString(),
    });
  }
  return out;
}

/** One projection run from empty tables: milliseconds spent in apply (transactions of `batch` events). */
async function project(pool: DatabasePool, all: readonly RecordedEvent[], batch: number, hashing: boolean) {
  const projection = ledgerProjectionOf({ hashing });
  for (const table of projection.tables) await pool.query(trustedSql(`drop table if exists ${table}`));
  for (const statement of projection.createSql) await pool.query(trustedSql(statement));
  const started = performance.now();
  for (let i = 0; i < all.length; i += batch)
    await pool.transaction((tx) => projection.apply(tx, all.slice(i, i + batch)));
  return performance.now() - started;
}

/** The chain's compute alone: ledgerRows over the same drafts with hashing on minus off, in milliseconds (median of 5). */
function hashingComputeMs(count: number): number {
  const all = [...drafts(count)];
  const time = (hashing: boolean) => {
    const started = performance.now();
    for (let i = 0; i < all.length; i += 2000) ledgerRows(all.slice(i, i + 2000), i, genesisHash, hashing);
    return performance.now() - started;
  };
  const samples = Array.from({ length: 5 }, () => time(true) - time(false));
  return median(samples);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function auditChainBenchmark(): Promise<void> {
  const cfg = config();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-chain-'));
  try {
    log(`audit-chain: writing an export of ${fmt(cfg.entries)} entries`);
    const x = await writeExport(dir, cfg.entries);
    const cli = await cliVerify(x);
    if (cli.code !== 0) throw new Error(`gateway audit verify failed: ${cli.out}`);
    log(`audit-chain: CLI ${fmt(cli.ms)} ms: ${cli.out}`);
    const inProcessMs = await inProcessVerify(x);
    const db = await openBenchDatabase(log);
    const rounds: Array<{ hashedMs: number; plainMs: number }> = [];
    try {
      const pool = await openPool(db.url);
      const all = events(cfg.projected);
      const entries = cfg.projected;
      await project(pool, all.slice(0, 2000), cfg.batch, true); // warm-up
      for (let r = 0; r < cfg.rounds; r++) {
        // Alternating which goes first, so a drift of the shared machine weighs on both alike.
        const first = await project(pool, all, cfg.batch, r % 2 === 1);
        const second = await project(pool, all, cfg.batch, r % 2 === 0);
        const [plainMs, hashedMs] = r % 2 === 1 ? [second, first] : [first, second];
        rounds.push({ hashedMs: round(hashedMs), plainMs: round(plainMs) });
        log(
          `audit-chain: round ${r + 1}: ${fmt(entries / (plainMs / 1000))} entries/s plain, ${fmt(entries / (hashedMs / 1000))} hashed`,
        );
      }
      await pool.end();
    } finally {
      await db.close();
    }
    const slower = median(rounds.map((r) => (r.hashedMs / r.plainMs - 1) * 100));
    const computeMs = hashingComputeMs(cfg.projected);
    const computeShare = (computeMs / median(rounds.map((r) => r.plainMs))) * 100;
    const figures: Figure[] = [
      figure(
        'verify-cli',
        `gateway audit verify, ${fmt(cfg.entries)} entries (as the CLI reports its reading of the file)`,
        Number(/(\d+) entries\/s/.exec(cli.out)?.[1] ?? 0),
        'entries/s',
        { atLeast: 200_000, unit: 'entries/s' },
      ),
      figure(
        'verify-cli-wall',
        'the same, wall clock of the command (process start and module loading included)',
        round(cfg.entries / (cli.ms / 1000), 0),
        'entries/s',
      ),
      figure(
        'verify-in-process',
        'the same verification in this process (checkpoint signatures included)',
        round(cfg.entries / (inProcessMs / 1000), 0),
        'entries/s',
        { atLeast: 200_000, unit: 'entries/s' },
      ),
      figure(
        'projection-cost',
        'ledger projection with hashing vs without (median of rounds)',
        round(slower, 1),
        '% slower',
        { atMost: 10, unit: '% slower' },
      ),
      figure(
        'projection-compute-share',
        'hashing compute alone (ledgerRows on vs off) over the median plain apply time',
        round(computeShare, 1),
        '% slower',
        { atMost: 10, unit: '% slower' },
      ),
      figure(
        'projection-hashed',
        'ledger projection throughput with hashing (median)',
        round(cfg.projected / (median(rounds.map((r) => r.hashedMs)) / 1000), 0),
        'entries/s',
      ),
    ];
    process.stdout.write(`${figureTable(figures)}\n`);
    const report = {
      at: new Date().toISOString(),
      machine: machine(),
      config: cfg,
      exportBytes: x.bytes,
      checkpoints: x.heads,
      cli: { ms: round(cli.ms), out: cli.out },
      inProcessMs: round(inProcessMs),
      hashingComputeMs: round(computeMs),
      rounds,
      figures,
    };
    const md = [
      '# Tamper-evident ledger benchmark (bench/audit-chain.ts)',
      '',
      `${report.at} · ${report.machine.cpuModel}, ${report.machine.cores} cores · Node ${report.machine.node}`,
      '',
      figureMarkdown(figures),
      '',
      `Export: ${fmt(cfg.entries)} entries, ${fmt(x.bytes / 2 ** 20, 1)} MiB, ${x.heads} signed checkpoints; the CLI answered \`${cli.out.replace(dir, '<dir>')}\`.`,
      '',
      '| round | plain ms | hashed ms | slower |',
      '| ---: | ---: | ---: | ---: |',
      ...rounds.map(
        (r, i) =>
          `| ${i + 1} | ${fmt(r.plainMs)} | ${fmt(r.hashedMs)} | ${fmt((r.hashedMs / r.plainMs - 1) * 100, 1)} % |`,
      ),
      '',
      `Projection: ${fmt(cfg.projected)} entries from facade-fetch events, transactions of ${cfg.batch} events, on an embedded PostgreSQL; apply time only.`,
      '',
    ].join('\n');
    writeResultFiles('audit-chain', report, md);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
