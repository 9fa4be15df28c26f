import { randomBytes } from 'node:crypto';
import { signingKeyMinBytes } from '../../domain/webhook/signing-secret.ts';

/** A new Standard Webhooks signing secret for a subscriber or a sink: `whsec_` and the base64 of 24 random bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(signingKeyMinBytes).toString('base64')}`;
