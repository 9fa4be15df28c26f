import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { OutboundDenied, type OutboundBoundary } from '../outbound/outbound-boundary.ts';

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
 * connection is a failed attempt with its status or error. The connection goes only to an address outside
 * gateway.outbound.deny-networks (decision 340): a host name is resolved through the boundary, which
 * answers only checked addresses, and an IP-literal host, which node connects to without a lookup, is
 * checked first. A refused delivery sends nothing and fails with the refusal as its error.
 */
export function httpTransport(boundary: OutboundBoundary): WebhookTransport {
  // Own agents: a pooled connection is one this transport opened, through the boundary.
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, lookup: boundary.lookup }),
    'https:': new HttpsAgent({ keepAlive: true, lookup: boundary.lookup }),
  };
  return async (message) => {
    const denied = boundary.literalRefusal(message.url);
    if (denied !== null) return { ok: false, status: null, error: `refused at the outbound boundary: ${denied}` };
    try {
      const status = await post(message, agents);
      const ok = status >= 200 && status < 300;
      return { ok, status, error: ok ? null : `HTTP ${status}` };
    } catch (error) {
      if (error instanceof OutboundDenied)
        return { ok: false, status: null, error: `refused at the outbound boundary: ${error.detail}` };
      return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

/** One POST; resolves with the status once the answer's head arrived (its body is not read). */
function post(
  message: OutboundMessage,
  agents: Readonly<Record<'http:' | 'https:', HttpAgent | HttpsAgent>>,
): Promise<number> {
  const url = new URL(message.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new Error(`the ${url.protocol.replace(':', '')} scheme cannot be delivered to`));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'POST',
      agent: agents[url.protocol as 'http:' | 'https:'],
      signal: AbortSignal.timeout(message.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(message.body),
        'webhook-id': message.id,
        'webhook-timestamp': String(message.timestamp),
        'webhook-signature': signatureOf(message.secret, message.id, message.timestamp, message.body),
      },
    });
    request.on('response', (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    request.on('error', (error) =>
      reject(error.name === 'AbortError' ? new Error(`no answer within ${message.timeoutMs} ms`) : error),
    );
    request.end(message.body);
  });
}
