// A marketplace's ingest while it runs or waits, whoever started it (the portal, a script, a webhook, the
// schedule, a push): GET /api/v1/marketplaces/{name}/ingest, polled every second while there is one and every
// few seconds otherwise. Read by a marketplace's page (its progress panel) and by every Ingest now button.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, ApiError, data, type Body } from './client';
import { marketplacesKey } from './marketplaces';

export type IngestProgress = Body<'/api/v1/marketplaces/{name}/ingest', 'get'>;

const following = 1000;
const watching = 5000;

export const ingestProgressKey = (name: string) => ['ingest-progress', name] as const;

/** The running or waiting ingest, or null when there is none (404 no-ingest-running). */
async function readProgress(name: string): Promise<IngestProgress | null> {
  try {
    return await data(api.GET('/api/v1/marketplaces/{name}/ingest', { params: { path: { name } } }));
  } catch (error) {
    if (error instanceof ApiError && error.problem.status === 404) return null;
    throw error;
  }
}

/**
 * The ingest of `name`, polled every second while one runs or waits (or while `busy`: an ingest this page
 * started and has not had its answer yet). When one ends the marketplace list is read again: its snapshots.
 */
export function useIngestProgress(name: string, busy = false) {
  const queries = useQueryClient();
  const progress = useQuery({
    queryKey: ingestProgressKey(name),
    queryFn: () => readProgress(name),
    refetchInterval: (query) => (busy || query.state.data ? following : watching),
    retry: false,
  });
  const current = progress.data ?? null;
  const had = useRef(false);
  useEffect(() => {
    if (current) had.current = true;
    else if (had.current) {
      had.current = false;
      void queries.invalidateQueries({ queryKey: marketplacesKey });
    }
  }, [current, queries]);
  return current;
}
