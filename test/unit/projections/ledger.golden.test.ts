// The ledger is hash-chained (docs/audit.md): what an event maps to must not change once written, or a
// rebuild stops giving the same hashes back. This maps a representative event of every type (and the
// branches of their mapping, ledger.samples.ts) to the rows the projection stores, and compares them with
// the rows captured in test/fixtures/ledger/mapping.golden.json. A new sample is added to the fixture with
// LEDGER_GOLDEN_ADD=1; an existing one is never rewritten.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { domainEventTypes } from '../../../src/domain/events.ts';
import { genesisHash } from '../../../src/projections/ledger/ledger.chain.ts';
import { ledgerDrafts } from '../../../src/projections/ledger/ledger.mapping.ts';
import { ledgerRows } from '../../../src/projections/ledger/ledger.projection.ts';
import { ledgerSamples } from './ledger.samples.ts';

const fixture = new URL('../../fixtures/ledger/mapping.golden.json', import.meta.url);

/** The rows a sample's entries are stored as, chained on from entry 40 with the genesis value as its hash. */
const rowsOf = (sample: (typeof ledgerSamples)[number]) => ledgerRows(ledgerDrafts(sample.recorded), 40, genesisHash);

const golden: Record<string, unknown> = existsSync(fixture) ? JSON.parse(readFileSync(fixture, 'utf8')) : {};

t.test('every event type has a sample, and every sample a name of its own', async (t) => {
  const sampled = new Set(ledgerSamples.map((s) => s.recorded.type));
  t.strictSame(
    domainEventTypes.filter((type) => !sampled.has(type)),
    [],
  );
  t.equal(new Set(ledgerSamples.map((s) => s.name)).size, ledgerSamples.length);
});

if (process.env.LEDGER_GOLDEN_ADD === '1') {
  const added = Object.fromEntries(ledgerSamples.filter((s) => !(s.name in golden)).map((s) => [s.name, rowsOf(s)]));
  writeFileSync(fixture, `${JSON.stringify({ ...golden, ...added }, null, 2)}\n`);
}

t.test('each sample maps to exactly the rows captured (values, field order, hashes)', async (t) => {
  for (const sample of ledgerSamples) {
    t.ok(sample.name in golden, `${sample.name}: captured`);
    // Compared as text: the same members in the same order, byte for byte.
    t.equal(JSON.stringify(rowsOf(sample), null, 2), JSON.stringify(golden[sample.name], null, 2), sample.name);
  }
  t.strictSame(
    Object.keys(golden).filter((name) => !ledgerSamples.some((s) => s.name === name)),
    [],
    'no captured sample is gone',
  );
});
