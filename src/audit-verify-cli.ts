import { createReadStream, readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import {
  ChainVerifier,
  verifyCheckpoints,
  type ChainBreak,
  type CheckpointInput,
  type SignedHead,
} from './application/audit-verify.ts';

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

/**
 * `gateway audit verify FILE [--public-key KEY --checkpoints FILE]` (docs/audit.md): checks an exported NDJSON
 * ledger offline; exit 1 naming the first entry that breaks the chain or a checkpoint.
 */
export async function auditVerify(
  file: string,
  publicKey: string | undefined,
  checkpointsFile: string | undefined,
): Promise<number> {
  if ((publicKey === undefined) !== (checkpointsFile === undefined)) {
    process.stderr.write('gateway audit verify: --public-key and --checkpoints go together\n');
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
  const span = verifier.last ? `entries ${verifier.first}..${verifier.last.id}` : 'no entries';
  const beyond = heads.length - verifier.checkedHeads;
  process.stdout.write(
    `${file}: chain intact over ${verifier.entries} entries (${span}); ` +
      `${verifier.checkedHeads} signed checkpoint(s) match` +
      (beyond > 0 ? `, ${beyond} signed checkpoint(s) name entries outside the file` : '') +
      (publicKey === undefined ? ' (no checkpoints given: the chain alone is checked)' : '') +
      `; ${seconds.toFixed(2)} s, ${Math.round(verifier.entries / Math.max(seconds, 0.001))} entries/s\n`,
  );
  return 0;
}
