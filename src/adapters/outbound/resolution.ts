import type { Address } from '../../domain/outbound/networks.ts';

/** A name resolved at the boundary: every address it has, why it may not be reached, or why it has none. */
export type Resolution =
  | Readonly<{ outcome: 'allowed'; addresses: readonly Address[] }>
  | Readonly<{ outcome: 'denied'; detail: string }>
  | Readonly<{ outcome: 'unresolved'; detail: string }>;

/** Resolves a host through the boundary (outbound-boundary.ts). */
export type Resolve = (host: string) => Promise<Resolution>;
