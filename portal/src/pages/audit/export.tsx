// The NDJSON export (GET /api/v1/audit/export, docs/audit.md: one entry per line in ledger order; query
// after (default 0), limit (default 1000, cap 10000)). A same-origin link with `download`, so the session
// cookie goes along and the browser saves the file; entries younger than the settling lag are withheld.
import { useState } from 'react';

const cap = 10_000;

const clampCount = (raw: string, fallback: number, max: number): number => {
  const n = Math.floor(Number(raw));
  return Number.isFinite(n) ? Math.min(Math.max(n, 0), max) : fallback;
};

export function ExportPanel() {
  const [after, setAfter] = useState('0');
  const [limit, setLimit] = useState('1000');
  const from = clampCount(after, 0, Number.MAX_SAFE_INTEGER);
  const count = Math.max(1, clampCount(limit, 1000, cap));
  const href = `/api/v1/audit/export?after=${String(from)}&limit=${String(count)}`;
  return (
    <section aria-labelledby="export-title" className="audit-panel">
      <h2 id="export-title">Export</h2>
      <p>
        The ledger as NDJSON, one entry per line in ledger order, starting after an entry id. To continue, download
        again after the last id in the file. Entries younger than the settling lag are withheld.
      </p>
      <div className="row">
        <label htmlFor="export-after">After entry</label>
        <input
          id="export-after"
          type="number"
          min={0}
          inputMode="numeric"
          value={after}
          onChange={(event) => setAfter(event.target.value)}
        />
        <label htmlFor="export-limit">Entries (at most {cap.toLocaleString('en')})</label>
        <input
          id="export-limit"
          type="number"
          min={1}
          max={cap}
          inputMode="numeric"
          value={limit}
          onChange={(event) => setLimit(event.target.value)}
        />
        <a className="button-link" href={href} download={`ledger-after-${String(from)}.ndjson`}>
          Download NDJSON
        </a>
      </div>
    </section>
  );
}
