import { Type } from 'typebox';
import type { reportOf } from '../../../application/vetting/report.use-case.ts';
import { waiverView } from '../../schemas/vetting.schema.ts';

export const tags = ['vetting'];
export const Reason = Type.String({
  maxLength: 2000,
  description: 'Why; recorded on the ledger (required, not blank)',
});

/** A vetting report as answered: its waivers shown as they stood when its outcome was computed. */
export function reportView(report: Awaited<ReturnType<typeof reportOf>>) {
  const { at, ...answer } = report;
  return { ...answer, waivers: report.waivers.map((w) => waiverView(w, at)) };
}
