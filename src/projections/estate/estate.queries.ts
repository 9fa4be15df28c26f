import { z } from 'zod';
import { sql, type CommonQueryMethods } from '../../adapters/postgres/pool.ts';
import type { EstateReport } from '../../domain/estate/estate.ts';

const ReportRow = z.object({ report: z.unknown() });

/** The last run's report, or null before any run applied. */
export async function lastEstateReport(db: CommonQueryMethods): Promise<EstateReport | null> {
  const row = await db.maybeOne(sql.type(ReportRow)`select report from estate_report where id = 1`);
  // Written only from estate-reconcile-triggered's report, which the reconciler typed.
  return row === null ? null : (row.report as EstateReport);
}
