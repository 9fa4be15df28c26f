// The gateway's log: pino at gateway.log.level, ISO timestamps, credentials redacted.
import pino, { type Logger } from 'pino';
import type { GatewayConfig } from './adapters/config/schema.ts';

// Nothing that could carry a credential reaches a log line.
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-xsrf-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.clientSecret',
  '*.webhookSecret',
];

export function createLogger(config: GatewayConfig, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level: config.log.level,
      redact: { paths: redactPaths, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination as pino.DestinationStream | undefined,
  );
}
