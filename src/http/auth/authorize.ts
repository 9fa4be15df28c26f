import type { FastifyRequest } from 'fastify';
import type { CommandMeta } from '../../domain/shared/decider.ts';
import { rolesOf } from '../../application/roles.ts';
import { approvesFor, isAdmin, isAuditorOrAdmin } from '../../domain/role/permissions.ts';
import type { HttpDeps } from '../http-deps.ts';
import { reject } from '../problems.ts';
import type { Caller } from './caller.ts';

/** The authenticated caller; routes behind the authentication hook always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw reject('unauthenticated', 'sign in, or present a machine credential as Authorization: Bearer');
  return request.caller;
}

const forbidden = (need: string) => reject('forbidden', `this needs the ${need} role`);

export async function requireAdmin(deps: HttpDeps, request: FastifyRequest): Promise<Caller> {
  const caller = callerOf(request);
  if (!isAdmin(await rolesOf(deps, caller))) throw forbidden('admin');
  return caller;
}

export async function requireAuditorOrAdmin(deps: HttpDeps, request: FastifyRequest): Promise<Caller> {
  const caller = callerOf(request);
  if (!isAuditorOrAdmin(await rolesOf(deps, caller))) throw forbidden('auditor or admin');
  return caller;
}

/** spec, Roles: approver of that marketplace, or admin, resolved from the addressed snapshot or waiver. */
export async function requireApproverOf(deps: HttpDeps, request: FastifyRequest, marketplace: Readonly<{ id: number; name: string }>): Promise<Caller> {
  const caller = callerOf(request);
  if (!approvesFor(await rolesOf(deps, caller), marketplace)) throw forbidden(`approver of ${marketplace.name}, or admin,`);
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
