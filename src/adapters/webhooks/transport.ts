import { createHmac } from 'node:crypto';

/** One outbound message as Standard Webhooks frames it. */
export type OutboundMessage = Readonly<{
  url: string;
  /** webhook-id: the delivery id, the receiver's de-duplication key. */
  id: string;
  /** webhook-timestamp: Unix seconds of this attempt. */
  timestamp: number;
  body: string;
  /** `whsec_<base64>`: the key is the decoded part after the prefix. */
  secret: string;
  timeoutMs: number;
}>;

export type SendResult = Readonly<{ ok: boolean; status: number | null; error: string | null }>;
export type WebhookTransport = (message: OutboundMessage) => Promise<SendResult>;

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed by the decoded secret. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * POSTs one message; 2xx is ok, anything else (a redirect too: it is not followed), a timeout or a refused
 * connection is a failed attempt with its status or error.
 */
export const httpTransport: WebhookTransport = async (message) => {
  try {
    const response = await fetch(message.url, {
      method: 'POST',
      body: message.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(message.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'webhook-id': message.id,
        'webhook-timestamp': String(message.timestamp),
        'webhook-signature': signatureOf(message.secret, message.id, message.timestamp, message.body),
      },
    });
    await response.body?.cancel().catch(() => {});
    const ok = response.status >= 200 && response.status < 300;
    return { ok, status: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return { ok: false, status: null, error: cause };
  }
};
