import { AsyncResource } from 'node:async_hooks';

// A projection's apply() runs inside the runner's transaction, where slonik refuses other connections.
// Work that must use the pool on its own (recording a failure, a catalog build started from a reactor)
// runs in the async context this module was loaded in, outside every transaction.
const outside = new AsyncResource('outside-projection-transactions');

/** Runs `work` outside any slonik transaction the caller may be in. */
export const outsideTransaction = <T>(work: () => T): T => outside.runInAsyncScope(work);
