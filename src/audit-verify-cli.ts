import { createReadStream, readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import {
  ChainVerifier,
  verifyCheckpoints,
  type ChainBreak,
  type CheckpointInput,
  type SignedHead,
} from './application/audit/verify.use-case.ts';

/** Reads FILE line by line in large chunks, feeding each line; stops at the first break. */
async function scan(file: string, verifier: ChainVerifier): Promise<ChainBreak | null> {
  let rest = '';
  let line = 0;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop() ?? '';
    for (const text of lines) {
      line += 1;
      const broken = verifier.feed(text, line);
      if (broken) return broken;
    }
  }
  return rest === '' ? null : verifier.feed(rest, line + 1);
}

/** The checkpoints file: GET /api/v1/audit/checkpoints's body, a JSON array of checkpoints, or one per line. */
function readCheckpoints(file: string): CheckpointInput[] {
  const text = readFileSync(file, 'utf8').trim();
  if (text.startsWith('{') && !text.includes('\n')) {
    const body = JSON.parse(text) as { checkpoints?: CheckpointInput[] } & CheckpointInput;
    return body.checkpoints ?? [body];
  }
  if (text.startsWith('[')) return JSON.parse(text) as CheckpointInput[];
  return text.split('\n').flatMap((l) => (l.trim() ? [JSON.parse(l) as CheckpointInput] : []));
}

/** --public-key: a file holding the JWK of GET /api/v1/audit/public-key, or the JWK itself. */
const readKey = (key: string): JWK => JSON.parse(key.trim().startsWith('{') ? key : readFileSync(key, 'utf8')) as JWK;

const where = (b: ChainBreak) =>
  `${b.entryId === null ? '' : `entry ${b.entryId}`}${b.line === null ? '' : ` (line ${b.line})`}`.trim();

/** What the operator states about the range the file should cover (decision 356). */
export type ExpectedRange = Readonly<{ through: number | null; partial: boolean }>;

/**
 * `gateway audit verify FILE [--public-key KEY --checkpoints FILE] [--through N | --partial]` (docs/audit.md):
 * checks an exported NDJSON ledger offline; exit 1 naming the first entry that breaks the chain or a
 * checkpoint, when the file holds no entry, or when it ends before the newest signed checkpoint (a truncated
 * export) unless the range was stated; 2 for a usage error.
 */
export async function auditVerify(
  file: string,
  publicKey: string | undefined,
  checkpointsFile: string | undefined,
  expected: ExpectedRange = { through: null, partial: false },
): Promise<number> {
  if ((publicKey === undefined) !== (checkpointsFile === undefined)) {
    process.stderr.write('gateway audit verify: --public-key and --checkpoints go together\n');
    return 2;
  }
  if (expected.through !== null && expected.partial) {
    process.stderr.write('gateway audit verify: --through and --partial exclude each other\n');
    return 2;
  }
  let heads: SignedHead[] = [];
  if (publicKey !== undefined && checkpointsFile !== undefined) {
    const verified = await verifyCheckpoints(readCheckpoints(checkpointsFile), readKey(publicKey));
    if ('failure' in verified) {
      process.stdout.write(`${file}: ${verified.failure.reason}\n`);
      return 1;
    }
    heads = verified.heads;
  }
  const verifier = new ChainVerifier(heads);
  const started = performance.now();
  const broken = await scan(file, verifier);
  const seconds = (performance.now() - started) / 1000;
  if (broken) {
    process.stdout.write(`${file}: chain broken at ${where(broken)}: ${broken.reason}\n`);
    return 1;
  }
  const short = rangeFailure(verifier, heads, expected);
  if (short) {
    process.stdout.write(`${file}: not verified: ${short}\n`);
    return 1;
  }
  const beyond = heads.length - verifier.checkedHeads;
  process.stdout.write(
    `${file}: chain intact over ${verifier.entries} entries (entries ${verifier.first}..${verifier.last!.id}); ` +
      `${verifier.checkedHeads} signed checkpoint(s) match` +
      (beyond > 0 ? `, ${beyond} signed checkpoint(s) name entries outside the file` : '') +
      (expected.through !== null ? `; ends at entry ${expected.through} as stated (--through)` : '') +
      (expected.partial ? '; a part of the ledger as stated (--partial): entries after it are not vouched for' : '') +
      (publicKey === undefined
        ? ' (no checkpoints given: the chain alone is checked, and a truncated file cannot be told apart)'
        : '') +
      `; ${seconds.toFixed(2)} s, ${Math.round(verifier.entries / Math.max(seconds, 0.001))} entries/s\n`,
  );
  return 0;
}

/**
 * Why an intact chain still does not verify (decision 356): an empty file proves nothing; a file must end at
 * the entry --through names; and without --through or --partial it must reach the newest signed checkpoint,
 * since a file cut short after its last matching checkpoint is otherwise indistinguishable from a whole one.
 */
function rangeFailure(verifier: ChainVerifier, heads: readonly SignedHead[], expected: ExpectedRange): string | null {
  const last = verifier.last?.id ?? null;
  if (last === null) return 'the file holds no ledger entry (an empty export proves nothing)';
  if (expected.through !== null)
    return last === expected.through
      ? null
      : `the file ends at entry ${last}, not at entry ${expected.through} as stated by --through`;
  const newest = Math.max(0, ...heads.map((head) => head.entryId));
  if (expected.partial || newest <= last) return null;
  return (
    `the file ends at entry ${last}, but a signed checkpoint names entry ${newest}: entries ${last + 1}..${newest} ` +
    `are missing (a truncated export?). If the file is meant to end there, say so with --through ${last}, or ` +
    `with --partial`
  );
}
