import type { ActorType } from '../../domain/kernel/decider.ts';

/** Who a request acts for, as authentication established it. */
export type Caller = Readonly<{
  via: 'session' | 'dev' | 'machine';
  principal: string;
  actorType: Extract<ActorType, 'human' | 'machine'>;
  /** The machine credential that authenticated the request (ledger tokenId); null for people. */
  credentialId: number | null;
  apiScopes: readonly string[];
  /** Identity-provider claims of a session (or the development hatch's groups); empty for machines. */
  claims: Readonly<Record<string, unknown>>;
  claimsTruncated: boolean;
  sessionId: string | null;
}>;

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}
