import { createServer } from 'node:net';

/** The address the gateway is to listen on cannot be taken; the message says what to do. */
export class PortUnavailable extends Error {}

/**
 * Refuses at once, before anything else starts, a port that another process holds (or that this user
 * may not bind), so that a start never gets halfway (a database started, a first password made) and then
 * stops on it. Port 0 (any free port) always passes. What binds between this check and the real listen
 * still fails the start, later.
 */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      const other = port === 65535 ? port - 1 : port + 1;
      const what =
        error.code === 'EADDRINUSE'
          ? `port ${port} is already in use (${where})`
          : error.code === 'EACCES'
            ? `port ${port} may not be bound by this user (${where})`
            : `${where} cannot be listened on (${error.code ?? error.message})`;
      reject(
        new PortUnavailable(
          `${what}: stop what listens there, or choose another port with PORT (PORT=${other} npm start) or gateway.server.port`,
        ),
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
