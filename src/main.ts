#!/usr/bin/env node
import { auditVerify } from './audit-verify-cli.ts';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { builtNote, configKeys, startupWarnings } from './adapters/config/describe.ts';
import { ConfigError, readConfig, type LoadedConfig } from './adapters/config/load.ts';
import type { GatewayConfig } from './adapters/config/schema.ts';
import { loadEstateFile } from './adapters/estate/estate-file.ts';
import { DataDirLocked, runningEmbeddedUrl } from './adapters/postgres/database.ts';
import { PortUnavailable } from './adapters/system/port.ts';
import { resetPassword } from './adapters/identity/local-idp/password.ts';
import { readSbom, sbomFile } from './adapters/system/sbom.ts';
import { estateSummary } from './domain/estate/estate-file.ts';
import type { Gateway } from './gateway.ts';

// The gateway's module graph (HTTP server, projections, vetting) is loaded only by the commands that run it:
// `audit verify`, `estate check`, `sbom`, `config` and `--version` start in a fraction of the time.
const gatewayModule = () => import('./gateway.ts');

const usage = `Usage: gateway <command> [--config FILE]

Commands:
  serve                   run the gateway (HTTP, projections, reactors)
  projections rebuild     drop every read model and rebuild it from the event store
  projections status      show each projection's checkpoint and its lag behind the store
  config                  list every configuration key with its default (and which are not built yet)
  estate check FILE       validate an estate file (docs/estate.md) without a running gateway or database:
                          exit 0 with a summary, else 1 with FILE:LINE: MESSAGE lines
  local-idp reset-password
                          a new password for the built-in sign-in's account admin, printed once (only its
                          hash is kept, in <data-dir>/local-idp); needs no running gateway or database
  sbom                    print this build's software bill of materials (CycloneDX JSON, as GET /actuator/sbom
                          answers it); needs no configuration, database or running gateway
  audit verify FILE [--public-key KEY --checkpoints FILE] [--through N | --partial]
                          check an exported ledger (NDJSON) offline: recompute its hash chain and check the
                          signed checkpoints (GET /api/v1/audit/checkpoints) with the public key (a JWK file,
                          GET /api/v1/audit/public-key); exit 1 naming the first entry that breaks, for an
                          empty file, or for a file that ends before the newest checkpoint (docs/audit.md)

Options:
  --config FILE           YAML configuration (default: $GATEWAY_CONFIG, else ./gateway.yaml if present)
  --json                  (projections status) machine-readable output
  --public-key KEY        (audit verify) the checkpoint signing key's public JWK, a file or the JSON itself
  --checkpoints FILE      (audit verify) the signed checkpoints, as GET /api/v1/audit/checkpoints answers them
  --through N             (audit verify) the file is expected to end at entry N (checkpoints beyond it allowed)
  --partial               (audit verify) the file is a part of the ledger: checkpoints beyond its end allowed
  -h, --help              this text
  -v, --version           the build's version

Every scalar key can be overridden by an environment variable named after it
(gateway.webhooks.max-attempts -> GATEWAY_WEBHOOKS_MAX_ATTEMPTS); PORT overrides gateway.server.port.`;

const fail = (message: string): never => {
  process.stderr.write(`gateway: ${message}\n`);
  process.exit(1);
};

function loaded(path: string | undefined): LoadedConfig {
  try {
    return readConfig({ ...(path ? { configPath: path } : {}), env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (error instanceof ConfigError) return fail(`configuration refused: ${error.message}`);
    throw error;
  }
}

const config = (path: string | undefined): GatewayConfig => loaded(path).config;

async function serve(settings: LoadedConfig): Promise<void> {
  const { createLogger, startGateway } = await gatewayModule();
  const logger = createLogger(settings.config);
  for (const warning of startupWarnings(settings)) logger.warn(warning);
  // Signals are taken from the start: a Ctrl-C while the gateway starts stops it once started, so
  // the embedded PostgreSQL (in its own process group) is never left behind.
  let gateway: Gateway | null = null;
  let stopping = false;
  const close = (running: Gateway) =>
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  const stop = (signal: string) => {
    if (stopping) process.exit(1); // a second signal means "now"
    stopping = true;
    logger.info({ signal }, 'shutting down');
    if (gateway !== null) void close(gateway);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The embedded PostgreSQL died and every restart failed: exit non-zero (a supervisor restarts the
  // gateway, which starts PostgreSQL afresh, on a new port if need be), releasing the data directory first.
  const onDatabaseGiveUp = (error: Error) => {
    stopping = true;
    const released = gateway?.core.database.close() ?? Promise.resolve();
    void released.catch(() => {}).finally(() => fail(`${error.message}; exiting`));
  };
  gateway = await startGateway(settings.config, logger, { onDatabaseGiveUp }).catch((error: unknown) => {
    if (error instanceof DataDirLocked || error instanceof PortUnavailable) return fail(error.message);
    logger.fatal({ err: error }, 'gateway failed to start');
    return fail(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (stopping) void close(gateway);
}

function listKeys(): void {
  for (const key of configKeys()) {
    const note = builtNote(key);
    const env = key.env ? `  [${key.env}]` : '';
    process.stdout.write(`${key.key} = ${key.defaultText}${env}${note ? `  (${note})` : ''}\n    ${key.description}\n`);
  }
}

async function rebuild(cfg: GatewayConfig): Promise<void> {
  const { createLogger, openCore } = await gatewayModule();
  const logger = createLogger({ ...cfg, log: { level: 'warn' } });
  const core = await openCore(cfg, logger).catch((error: unknown) => {
    if (error instanceof DataDirLocked)
      return fail(`${error.message}\nA rebuild needs the read models to itself: stop the gateway first.`);
    throw error;
  });
  try {
    if (
      !(await core.leaderLock.tryAcquire(() => fail('lost the database connection during the rebuild; run it again')))
    ) {
      fail('a gateway process is running projections against this database; stop every replica before rebuilding');
    }
    const head = await core.store.head();
    const bar = new SingleBar({
      format: 'rebuilding read models [{bar}] {percentage}% | {value}/{total} events | {eta_formatted} left',
      stream: process.stderr,
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    });
    bar.start(Number(head), 0);
    const started = performance.now();
    const reached = await core.runner.rebuild(({ position, head: total }) => {
      bar.setTotal(Number(total));
      bar.update(Number(position));
    });
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `rebuilt ${core.runner.projections.filter((p) => p.rebuild !== false).length} read models from ${reached} events in ${seconds.toFixed(1)} s (${Math.round(Number(reached) / Math.max(seconds, 0.001))} events/s)\n`,
    );
  } finally {
    await core.close();
  }
}

async function status(cfg: GatewayConfig, json: boolean): Promise<void> {
  const { createLogger, openCore } = await gatewayModule();
  const logger = createLogger({ ...cfg, log: { level: 'warn' } });
  const running = cfg.database.url ? null : runningEmbeddedUrl(cfg.dataDir);
  const core = await openCore(cfg, logger, running ? { databaseUrl: running } : {});
  try {
    const rows = await core.runner.status();
    if (json) {
      process.stdout.write(
        `${JSON.stringify(
          rows.map((r) => ({ ...r, position: Number(r.position), head: Number(r.head), lag: Number(r.lag) })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    const table = [
      ['projection', 'version', 'position', 'head', 'lag', 'rebuild'],
      ...rows.map((r) => [
        r.name,
        String(r.version),
        String(r.position),
        String(r.head),
        String(r.lag),
        r.rebuildable ? 'yes' : 'no (reactor)',
      ]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table)
      process.stdout.write(
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
      );
  } finally {
    await core.close();
  }
}

/** `gateway estate check FILE`: the file as the reconciler would read it, with the configured URL schemes. */
async function estateCheck(args: readonly string[], configPath: string | undefined): Promise<void> {
  const [sub, file, ...rest] = args;
  if (sub !== 'check' || file === undefined || rest.length > 0)
    return fail(`usage: gateway estate check FILE\n\n${usage}`);
  const loaded = await loadEstateFile(file, config(configPath).allowedUrlSchemes);
  if (!loaded.ok) {
    process.stderr.write(loaded.errors.map((line) => `${line}\n`).join(''));
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${file}: valid: ${estateSummary(loaded.estate)}\n`);
}

/** `gateway local-idp reset-password`: the new password on stdout, this once; a running gateway takes it at its next sign-in. */
async function resetLocalPassword(cfg: GatewayConfig): Promise<void> {
  const password = await resetPassword(cfg.dataDir, new Date());
  process.stderr.write(`New password of the built-in sign-in's account admin (shown this once):\n`);
  process.stdout.write(`${password}\n`);
}

/** `gateway sbom`: the build's CycloneDX document on stdout, byte for byte what /actuator/sbom serves. */
function printSbom(): void {
  const sbom = readSbom();
  if (!sbom) return fail(`this build carries no SBOM (${sbomFile()}): run npm run build`);
  process.stdout.write(sbom.body);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        json: { type: 'boolean' },
        'public-key': { type: 'string' },
        checkpoints: { type: 'string' },
        through: { type: 'string' },
        partial: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`${(await gatewayModule()).buildVersion() ?? 'unknown'}\n`);
    return;
  }
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (positionals[0] === 'estate') return estateCheck(positionals.slice(1), values.config);
  if (positionals[0] === 'audit') {
    const [sub, file, ...rest] = positionals.slice(1);
    const through = values.through === undefined ? null : Number(values.through);
    if (sub !== 'verify' || file === undefined || rest.length > 0)
      return fail(
        `usage: gateway audit verify FILE [--public-key KEY --checkpoints FILE] [--through N | --partial]\n\n${usage}`,
      );
    if (through !== null && !(Number.isSafeInteger(through) && through >= 1))
      return fail(`--through takes an entry id (a whole number from 1), not '${values.through}'`);
    process.exitCode = await auditVerify(file, values['public-key'], values.checkpoints, {
      through,
      partial: values.partial ?? false,
    });
    return;
  }
  const command = positionals.join(' ');
  switch (command) {
    case 'serve':
      return serve(loaded(values.config));
    case 'projections rebuild':
      return rebuild(config(values.config));
    case 'projections status':
      return status(config(values.config), values.json ?? false);
    case 'config':
      return listKeys();
    case 'local-idp reset-password':
      return resetLocalPassword(config(values.config));
    case 'sbom':
      return printSbom();
    default:
      return fail(`unknown command '${command}'\n\n${usage}`);
  }
}

await main(process.argv.slice(2));
