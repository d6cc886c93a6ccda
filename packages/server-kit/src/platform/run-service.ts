import closeWithGrace from 'close-with-grace';
import type { TObject } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load-config.js';
import { likelyTypos } from '../config/likely-typos.js';
import type { App } from '../http/create-server.js';
import { createLogger } from '../logging/logger.js';
import { drainStdout, onStdoutGone } from '../logging/stdout-sink.js';
import { BootServer, type NotReadyBody, type Waiting } from './boot-server.js';
import { closeHungUpTerminalsAtExit } from './hung-up-terminals.js';
import { dependenciesOf, DependencyUnreachable, describeSetting, waitForDependencies, type WaitReport } from './dependency-wait.js';
import type { CommonConfig } from './service-app.js';

/** The names of a config's numeric variables (a port is one). */
type NumberVariable<C> = { [K in keyof C]: C[K] extends number ? K : never }[keyof C] & string;

export interface ServiceDefinition<C extends CommonConfig> {
  /** The name in every log line and message (`game-service`). */
  name: string;
  /** Every variable the service reads: unknown ones that look like typos of these get a warning. */
  configSchema: TObject;
  /** Reads and validates the configuration (throws ConfigError). */
  loadConfig(env: Record<string, string | undefined>): Readonly<C>;
  /** The variable that holds the service's port (`GAME_PORT`), named when the port is taken. */
  portVariable: NoInfer<NumberVariable<C>>;
  build(config: Readonly<NoInfer<C>>): Promise<App>;
  /** Lines for the start banner after "listening at <url>": where to go, what to do first. */
  banner?(app: App, url: string): Promise<string[]>;
  /** While starting: the body of the 503 `not-ready` on paths that answer errors in their own shape. */
  notReadyBody?: NotReadyBody;
}

const startupTimeoutVariable = 'STARTUP_TIMEOUT_SECONDS';
/** How often a service still waiting for PostgreSQL or Redis says so in its log. */
const waitingLogIntervalMs = 10_000;

/** One line on stderr, for a person, and exit 1: the start cannot go on and retrying will not help. */
function refuseToStart(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(1);
}

/** Why the port cannot be had, naming the variable to change. */
function listenFailure(error: unknown, portVariable: string, port: number, host: string): string {
  const code = (error as { code?: string }).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === 'EADDRINUSE') return `${where}: the port is in use by another process; stop it or set ${portVariable} to a free port`;
  if (code === 'EACCES') return `${where}: permission denied (ports below 1024 need privileges); set ${portVariable} to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `${where}: this machine has no such address; set HOST to one of its addresses (0.0.0.0 for all)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${where}: HOST "${host}" does not resolve; set HOST to an address of this machine (0.0.0.0 for all)`;
  return `${where}: ${error instanceof Error ? error.message : String(error)}`;
}

/** The URL a person opens for a service listening on `host` (all interfaces: this machine's loopback). */
function urlFor(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Logs the wait for a dependency: the first failure, then every `waitingLogIntervalMs`, and its answer. */
function waitLogger(log: Logger, timeoutVariable: string, timeoutSeconds: number): (report: WaitReport) => void {
  const lastLoggedAt = new Map<string, number>();
  return ({ dependency, attempt, elapsedMs, cause }) => {
    const seconds = Math.round(elapsedMs / 1000);
    if (cause === undefined) {
      if (attempt > 1) log.info(`${dependency.what} answers (after ${seconds} s)`);
      return;
    }
    const last = lastLoggedAt.get(dependency.check);
    if (last === undefined) {
      log.warn(`waiting for ${dependency.what} (${describeSetting(dependency)}): ${cause}; retrying for up to ${timeoutSeconds} s (${timeoutVariable})`);
    } else if (elapsedMs - last < waitingLogIntervalMs) {
      return;
    } else {
      log.warn(`still waiting for ${dependency.what} after ${seconds} s (attempt ${attempt}): ${cause}`);
    }
    lastLoggedAt.set(dependency.check, elapsedMs);
  };
}

/**
 * Runs a service as its main module, the way an operator expects:
 * - A bad variable: one line naming it, exit 1. Unknown variables that look like typos of known
 *   ones (`GAME_PROT`, `PORT`): a warning each.
 * - The port is taken at once (a port in use: one line naming the port variable, exit 1); until
 *   the service is ready a small server on it answers `/healthz` (200) and `/readyz` (503, what
 *   it waits for).
 * - PostgreSQL and Redis are retried with backoff for `STARTUP_TIMEOUT_SECONDS`, then one line
 *   naming `DATABASE_URL` / `REDIS_URL` (password masked) and the cause, exit 1.
 * - SIGTERM, SIGINT or SIGHUP, at any point: stop accepting connections, let requests in flight
 *   finish (up to `SHUTDOWN_TIMEOUT_MS`), close resources, a last log line, exit 0. Started by
 *   the launcher with an IPC channel, the service also stops when the launcher is gone; and it
 *   stops the same way when its standard output is gone (a hung-up terminal, a closed pipe).
 */
export async function runService<C extends CommonConfig>(service: ServiceDefinition<C>): Promise<void> {
  const { name } = service;
  let config: Readonly<C>;
  try {
    config = service.loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) refuseToStart(name, `configuration error: ${error.message}`);
    throw error;
  }
  const log = createLogger({ level: config.LOG_LEVEL, name, format: config.LOG_FORMAT });
  closeHungUpTerminalsAtExit();
  for (const { variable, meant } of likelyTypos(process.env, Object.keys(service.configSchema.properties))) {
    log.warn(`${variable} is set but ${name} does not read it; did you mean ${meant}?`);
  }

  const dependencies = dependenciesOf(config);
  const waiting = new Map<string, Waiting>(dependencies.map((dependency) => [dependency.check, { check: dependency.check, reason: `waiting for ${dependency.what} (${describeSetting(dependency)}): first attempt under way` }]));
  const bootServer = new BootServer(name, () => (waiting.size > 0 ? [...waiting.values()] : [{ check: 'startup', reason: 'migrating the database and loading' }]), service.notReadyBody);
  const requestedPort = config[service.portVariable] as number;
  let port: number;
  try {
    port = await bootServer.listen(requestedPort, config.HOST);
  } catch (error) {
    refuseToStart(name, listenFailure(error, service.portVariable, requestedPort, config.HOST));
  }

  const stopping = new AbortController();
  let building: Promise<App> | undefined;
  const startedAt = Date.now();
  /** Why the service stops when no signal asked it to (`stopBecause`). */
  let stopReason = 'asked to';
  const { close } = closeWithGrace(
    {
      delay: config.SHUTDOWN_TIMEOUT_MS,
      logger: { error: (message: unknown) => log.error(message instanceof Error ? { err: message } : {}, String(message)) },
    },
    async ({ signal, err, manual }) => {
      const reason = signal ?? (manual ? stopReason : 'an uncaught error');
      if (err) log.error({ err }, 'shutting down after an uncaught error');
      else log.info(`shutting down (${reason})`);
      const stopAskedAt = Date.now();
      stopping.abort();
      await bootServer.close();
      const app = await building?.catch(() => undefined);
      await app?.close();
      log.info(`stopped (${reason}) in ${Date.now() - stopAskedAt} ms, after running ${Math.round((Date.now() - startedAt) / 1000)} s`);
      await drainStdout();
    },
  );
  /** Stops as on SIGTERM, once (a stop under way goes on as it is). */
  const stopBecause = (reason: string) => {
    if (stopping.signal.aborted) return;
    stopReason = reason;
    void close();
  };
  // Started by a launcher (scripts/start-all.mjs) with an IPC channel: the channel closes when the
  // launcher dies, however it died (SIGKILL included), and a service must not outlive it. The
  // launcher also sets PLAYSTACK_LAUNCHER_CHANNEL=1: a channel already closed here closed while
  // this process was still loading its modules, its 'disconnect' heard by nobody.
  const launcherGone = () => {
    log.warn('the launcher that started this service is gone');
    stopBecause('the launcher is gone');
  };
  if (process.channel && process.connected) {
    process.once('disconnect', launcherGone);
    process.channel.unref();
  } else if (process.env.PLAYSTACK_LAUNCHER_CHANNEL === '1') {
    launcherGone();
  }
  // Nobody reads what it writes any more (its terminal hung up, the log collector reading its
  // pipe is gone): running on unheard and unsupervised helps nobody, so it stops.
  onStdoutGone((error) => stopBecause(`standard output is gone: ${error.code ?? error.message}`));

  const logWait = waitLogger(log, startupTimeoutVariable, config.STARTUP_TIMEOUT_SECONDS);
  try {
    await waitForDependencies(dependencies, {
      timeoutMs: config.STARTUP_TIMEOUT_SECONDS * 1000,
      timeoutVariable: startupTimeoutVariable,
      signal: stopping.signal,
      onAttempt: (report) => {
        if (report.cause === undefined) waiting.delete(report.dependency.check);
        else waiting.set(report.dependency.check, { check: report.dependency.check, reason: `waiting for ${report.dependency.what} (${describeSetting(report.dependency)}), ${Math.round(report.elapsedMs / 1000)} s so far: ${report.cause}` });
        logWait(report);
      },
    });
  } catch (error) {
    if (error instanceof DependencyUnreachable) refuseToStart(name, error.message);
    throw error;
  }
  if (stopping.signal.aborted) return;

  // Built and ready: plugins that take ports of their own (OTLP/gRPC) have them before the
  // service takes over its HTTP port.
  building = service.build(config).then(async (built) => {
    await built.ready();
    return built;
  });
  let app: App;
  try {
    app = await building;
  } catch (error) {
    if (stopping.signal.aborted) return;
    if (error instanceof ConfigError) refuseToStart(name, `configuration error: ${error.message}`);
    throw error;
  }
  if (stopping.signal.aborted) return;
  // The port changes hands here: between these two lines (a few milliseconds) it refuses connections.
  await bootServer.close();
  try {
    await app.listen({ port, host: config.HOST, listenTextResolver: (address) => `listening at ${address}` });
  } catch (error) {
    refuseToStart(name, listenFailure(error, service.portVariable, requestedPort, config.HOST));
  }
  const url = urlFor(config.HOST, port);
  for (const line of (await service.banner?.(app, url).catch((error: unknown) => [`(banner failed: ${String(error)})`])) ?? []) log.info(line);
}
