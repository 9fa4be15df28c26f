import { severities, type Finding } from '../../domain/kernel/findings.ts';
import type { Connector } from './connector.ts';

export type HttpScannerSettings = Readonly<{ url: string; timeoutMs: number }>;

const maxAnswerBytes = 4 * 1024 * 1024;
const maxFindings = 10_000;

const isFinding = (value: unknown): value is Finding => {
  const f = value as Record<string, unknown> | null;
  return (
    typeof f === 'object' &&
    f !== null &&
    typeof f.id === 'string' &&
    typeof f.location === 'string' &&
    typeof f.message === 'string' &&
    (severities as readonly unknown[]).includes(f.severity)
  );
};

/**
 * The external scanner (connector `http`): POSTs the snapshot (identity and text files) as JSON to the
 * configured URL and reads back `{state?, findings[], detail?, reportUrl?}`. A 202, or `state:
 * "PENDING"`, is a scanner that has not answered yet: the verdict is PENDING (which blocks, and is
 * INCONCLUSIVE on a re-vet) and its reportUrl is kept. Anything else unexpected is an error.
 */
export function httpConnector(settings: HttpScannerSettings): Connector {
  return {
    name: 'http',
    description: `External scanner at ${new URL(settings.url).origin}: the snapshot's files are sent for an outside verdict`,
    async scan(input, subject, signal) {
      const files = input.files.map((file) => ({
        path: file.path,
        size: file.size,
        ...(file.text === null ? {} : { text: file.text }),
      }));
      const response = await fetch(settings.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          snapshotId: subject.snapshotId,
          marketplace: subject.marketplace,
          sha: subject.sha,
          files,
        }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]),
      });
      const text = await response.text();
      if (text.length > maxAnswerBytes) throw new Error(`the scanner answered more than ${maxAnswerBytes} bytes`);
      if (response.status !== 200 && response.status !== 202)
        throw new Error(`the scanner answered HTTP ${response.status}`);
      let body: Record<string, unknown> = {};
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw new Error('the scanner answered something that is not JSON');
        }
      }
      const reportUrl = typeof body.reportUrl === 'string' ? body.reportUrl : null;
      const detail = typeof body.detail === 'string' ? body.detail.slice(0, 1000) : null;
      if (response.status === 202 || body.state === 'PENDING')
        return {
          findings: [],
          detail: detail ?? 'the external scanner has not answered yet',
          reportUrl,
          pending: true,
        };
      const raw = Array.isArray(body.findings) ? body.findings : [];
      if (raw.length > maxFindings || !raw.every(isFinding))
        throw new Error('the scanner answered findings that are not {id, severity, location, message}');
      const findings = raw.map((f) => ({
        id: f.id,
        severity: f.severity,
        location: f.location,
        message: f.message.slice(0, 1000),
      }));
      // A bare FAIL without findings still fails (outcome.ts treats it as one uncovered finding).
      if (body.state === 'FAIL' && !findings.some((f) => f.severity === 'HIGH' || f.severity === 'CRITICAL')) {
        findings.push({
          id: 'http/fail',
          severity: 'HIGH',
          location: '',
          message: detail ?? 'the external scanner failed the snapshot',
        });
      }
      return { findings, detail, reportUrl };
    },
  };
}
