import type { Rejection } from '../../domain/kernel/decider.ts';
import type { RejectionCode } from '../../domain/kernel/rejection.ts';

/** A refusal on its way to the caller; src/http/problems.ts answers it as a problem document. */
export class Rejected extends Error {
  readonly rejection: Rejection;
  constructor(rejection: Rejection) {
    super(rejection.detail);
    this.rejection = rejection;
    this.name = 'Rejected';
  }
}

export const reject = (code: RejectionCode, detail: string, extensions?: Record<string, unknown>): Rejected =>
  new Rejected({ code, detail, ...(extensions ? { extensions } : {}) });
