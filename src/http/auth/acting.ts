import type { FastifyRequest } from 'fastify';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { callerOf, metaFor, requireAdmin } from './authorize.ts';
import type { Caller } from './caller.ts';
import type { HttpDeps } from '../http-deps.ts';

/** A command's call of its use case, given who acts and what the events it records carry. */
type Act<T> = (caller: Caller, meta: CommandMeta) => T;

/** Calls `act` with the request's authenticated caller and the meta of the events it records. */
export function actAs<T>(deps: HttpDeps, request: FastifyRequest, act: Act<T>): T {
  const caller = callerOf(request);
  return act(caller, metaFor(deps, request, caller));
}

/** As actAs, for a route only an admin may call: anyone else is refused (403) before `act` runs. */
export async function actAsAdmin<T>(deps: HttpDeps, request: FastifyRequest, act: Act<T>): Promise<Awaited<T>> {
  const caller = await requireAdmin(deps, request);
  return await act(caller, metaFor(deps, request, caller));
}

/** What an admin-only read answers: anyone else is refused (403) before `read` runs. */
export async function readAsAdmin<T>(deps: HttpDeps, request: FastifyRequest, read: () => T): Promise<Awaited<T>> {
  await requireAdmin(deps, request);
  return await read();
}
