// The gateway's log: pino at gateway.log.level, ISO timestamps, credentials redacted; JSON lines, or one
// readable coloured line per entry on a terminal (gateway.log.format).
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type { PrettyOptions, PrettyStream } from 'pino-pretty';
import type { GatewayConfig } from './adapters/config/schema.ts';

// pino-pretty is loaded on the first readable log only: a gateway logging JSON never needs it.
const require = createRequire(import.meta.url);
const pretty = (options: PrettyOptions): PrettyStream =>
  (require('pino-pretty') as { default: (options: PrettyOptions) => PrettyStream }).default(options);

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

type LogSettings = { log: Pick<GatewayConfig['log'], 'level'> & Partial<Pick<GatewayConfig['log'], 'format'>> };

/** Readable on a terminal when asked for, or by default when stdout is one; JSON for collectors otherwise. */
const prettyWanted = (config: LogSettings, destination: NodeJS.WritableStream | undefined): boolean => {
  const format = config.log.format ?? 'auto';
  if (format !== 'auto') return format === 'pretty';
  return destination === undefined && process.stdout.isTTY === true;
};

export function createLogger(config: LogSettings, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level: config.log.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (!prettyWanted(config, destination)) return pino(options, destination as pino.DestinationStream | undefined);
  // The request line already says method, URL, status and time; its structured copies stay in JSON only.
  const stream = pretty({
    destination: destination ?? 1,
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    singleLine: true,
  });
  return pino(options, stream);
}
