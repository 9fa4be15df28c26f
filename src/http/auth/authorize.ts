import type { FastifyRequest } from 'fastify';
import type { CommandMeta } from '../../domain/kernel/decider.ts';
import { requireAdminRole, requireApprover, requireAuditorRole } from '../../application/access/standing.ts';
import type { HttpDeps } from '../http-deps.ts';
import { reject } from '../../application/kernel/rejected.ts';
import type { Caller } from './caller.ts';

/** The authenticated caller; routes behind the authentication hook always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller)
    throw reject('unauthenticated', 'sign in, or present a machine credential as Authorization: Bearer');
  return request.caller;
}

// The role checks themselves are the use cases' (src/application/access/standing.ts); these take the caller from the request.

export async function requireAdmin(deps: HttpDeps, request: FastifyRequest): Promise<Caller> {
  const caller = callerOf(request);
  await requireAdminRole(deps, caller);
  return caller;
}

export async function requireAuditorOrAdmin(deps: HttpDeps, request: FastifyRequest): Promise<Caller> {
  const caller = callerOf(request);
  await requireAuditorRole(deps, caller);
  return caller;
}

export async function requireApproverOf(
  deps: HttpDeps,
  request: FastifyRequest,
  marketplace: Readonly<{ id: number; name: string }>,
): Promise<Caller> {
  const caller = callerOf(request);
  await requireApprover(deps, caller, marketplace);
  return caller;
}

/** What the events of a request carry: who acted, as what, when, and with which credential. */
export function metaFor(deps: HttpDeps, request: FastifyRequest, caller: Caller = callerOf(request)): CommandMeta {
  return {
    principal: caller.principal,
    actorType: caller.actorType,
    at: deps.clock.instant(),
    correlationId: request.id,
    ...(caller.credentialId === null ? {} : { credentialId: caller.credentialId }),
  };
}
