import { createServer } from 'node:http';
import type { Test } from 'tap';

export type ScannerAnswer = 'pending' | 'clean' | 'findings';
export type ScanRequest = { snapshotId: number; sha: string; files: { path: string }[] };

/**
 * An external scanner for the http connector on a loopback port: it answers 202 (PENDING) until told
 * otherwise, then clean or with one CRITICAL finding. Every request body is kept in `received`.
 */
export async function loopbackScanner(t: Test) {
  const state = { answer: 'pending' as ScannerAnswer, received: [] as ScanRequest[], url: '' };
  const scanner = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScanRequest);
      res.setHeader('content-type', 'application/json');
      if (state.answer === 'pending') {
        res.statusCode = 202;
        res.end(JSON.stringify({ reportUrl: 'https://scanner.example/reports/1' }));
      } else if (state.answer === 'clean') {
        res.end(
          JSON.stringify({
            findings: [],
            detail: 'nothing found',
            reportUrl: 'https://scanner.example/reports/2',
          }),
        );
      } else {
        res.end(
          JSON.stringify({
            findings: [
              {
                id: 'ext-malware',
                severity: 'CRITICAL',
                location: 'plugins/tidy/commands/tidy.md:1',
                message: 'known bad',
              },
            ],
            detail: 'scanned',
            reportUrl: 'https://scanner.example/reports/2',
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => scanner.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => scanner.close(() => resolve())));
  state.url = `http://127.0.0.1:${(scanner.address() as { port: number }).port}/scan`;
  return state;
}
