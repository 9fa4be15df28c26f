// The gateway's log: pino at gateway.log.level, ISO timestamps, credentials redacted; JSON lines, or one
// readable coloured line per entry on a terminal (gateway.log.format).
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
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
