import { randomUUID } from 'node:crypto';

export const correlationId = (): string => randomUUID();
