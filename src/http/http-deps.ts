import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { EventStore } from '../adapters/eventstore/port.ts';
import type { ProjectionWaiter } from '../projections/runner/wait-for.ts';

export type HttpApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export type HttpDeps = Readonly<{
  baseUrl: string;
  version: string | null;
  bodyLimitBytes: number;
  logger: FastifyBaseLogger;
  store: EventStore;
  waiter: ProjectionWaiter;
  checks: Readonly<{ database(): Promise<void>; eventStore(): Promise<void> }>;
  problemsDir: string;
}>;

