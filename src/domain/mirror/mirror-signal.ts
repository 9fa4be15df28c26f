// How the mirror reactor (projections/mirror) wakes the leader's mirror duty (application/mirror/mirror.duty.ts).

/** What the mirror reactor tells the leader's mirror duty . */
export type MirrorWake = Readonly<{ trigger: 'change' | 'api'; requestId: string | null }>;

/** A late-bound listener: the runner is built before the duty it wakes. */
export class MirrorSignal {
  private listener: ((wake: MirrorWake) => void) | null = null;

  listen(listener: ((wake: MirrorWake) => void) | null): void {
    this.listener = listener;
  }

  notify(wake: MirrorWake): void {
    this.listener?.(wake);
  }
}
