// Runs services as child processes, each with the Node.js flags its package.json lists under
// `nodeFlags` (docs/operations.md). With no arguments (`npm start`) both run, as the local demo;
// with service names (`npm run start:game`, `npm run start:observability`) only those, reading
// only the environment. Whatever changed since the last build is built first (scripts/build.mjs);
// nothing is rebuilt when nothing changed.
//
// Stopping, the way a supervisor expects:
// - SIGTERM, SIGINT or SIGHUP to this launcher (npm forwards SIGTERM and SIGINT to it: the npm
//   scripts `exec` it, so no shell sits in between to swallow them) is passed on to every
//   service, which finishes its requests in flight and exits 0; the launcher then exits 0.
// - Each service runs in a process group of its own, so a signal sent to the terminal's group
//   (Ctrl-C) reaches it once, from here. The launcher itself may get the same signal twice (from
//   the terminal and forwarded by npm): a repeat within `repeatWindowMs` is the same request.
//   A later one is passed on again, and a service takes a second signal as "stop now".
// - The launcher watches its parent: when it is gone (npm killed with SIGKILL, say) the services
//   are stopped as on SIGTERM. The services watch the launcher through an IPC channel: when it
//   is gone (killed with SIGKILL) they stop by themselves. No service outlives its launcher.
// - Its output gone (the terminal hung up, the reader of its stdout pipe went away), the launcher
//   stops the services as on SIGTERM, and each service stops by itself at its next line.
// - Exit status: 0 when every service stopped cleanly; otherwise the first failure's code
//   (128 + signal number for a service killed by a signal this launcher did not pass on).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from './build.mjs';
import { serviceNodeFlags } from './node-flags.mjs';

const known = ['game-service', 'observability-service'];
const requested = [...new Set(process.argv.slice(2))];
const unknown = requested.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  console.error(`unknown service(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  process.exit(2);
}

const launcherName = 'npm-start';
const repeatWindowMs = 1_000;
const parentCheckIntervalMs = 500;
const levels = { info: 30, warn: 40, error: 50 };
/** Set once a write to stdout or stderr failed: the terminal hung up, or the pipe's reader is gone. */
let outputGone = false;

/**
 * One line per event, as the services write theirs: readable on a terminal, a JSON line
 * (pino's fields) otherwise.
 */
function say(level, msg) {
  if (outputGone) return;
  if (process.stdout.isTTY) {
    const time = new Date().toTimeString().slice(0, 8);
    process.stdout.write(`${time} ${level.toUpperCase().padEnd(5)} ${launcherName}  ${msg}\n`);
  } else {
    process.stdout.write(`${JSON.stringify({ level: levels[level], time: Date.now(), name: launcherName, msg })}\n`);
  }
}

const built = buildIfStale((msg) => say('info', msg));
if (built !== 0) {
  say('error', `the build failed (exit ${built}); fix the error above and run npm start again`);
  process.exit(built);
}

// Node.js 20 would abort at exit on a terminal that hung up (see the function).
const { closeHungUpTerminalsAtExit } = await import('../packages/server-kit/dist/platform/hung-up-terminals.js');
closeHungUpTerminalsAtExit();

const env = { ...process.env };
if (requested.length === 0 && env.GAME_DEV_AUTH === undefined) {
  // The quick start is a local demo: let the demo game sign players in with dev:<name> codes.
  env.GAME_DEV_AUTH = '1';
  say('warn', 'GAME_DEV_AUTH=1 for the local demo (dev:<name> sign-in); never set it in production');
}

/** Per service, what the demo adds to the environment (the bundled game service's tracing). */
const serviceEnv = { 'game-service': {}, 'observability-service': {} };
/** The demo players' environment, when they run. */
let demoTrafficEnv;
if (requested.length === 0) await wireTheDemo();

/**
 * `npm start` is the local demo of both services together: the game service's traces go to the
 * observability service (and so do the observability service's own, of its dashboard and API) (with an ingestion key made on the first start, kept in DATA_DIR), and
 * demo players play, unless DEMO_TRAFFIC=0. An OTEL_EXPORTER_OTLP_ENDPOINT of the operator's
 * wins: the game service then sends where it says, and no key is made.
 */
async function wireTheDemo() {
  const observabilityUrl = `http://127.0.0.1:${env.OBSERVABILITY_PORT ?? '8081'}`;
  let exportEnv = {};
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined) {
    const keyFile = join(env.DATA_DIR ?? './data', 'game-service-ingestion.key');
    const key = await ingestionKeyIn(keyFile);
    exportEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: observabilityUrl, OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${key}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
    // The observability service traces its own dashboard and API requests into itself too (its
    // ingest makes no spans, so this cannot loop).
    serviceEnv['observability-service'] = { INGESTION_KEY_FILE: env.INGESTION_KEY_FILE ?? keyFile, ...exportEnv };
    serviceEnv['game-service'] = exportEnv;
    say('info', `game-service sends its traces to observability-service at ${observabilityUrl} with ingestion key ${key.slice(0, 13)}... (${keyFile}); so do observability-service's own dashboard and API requests`);
  }
  if (env.DEMO_TRAFFIC === '0') return;
  demoTrafficEnv = { ...env, ...exportEnv, OTEL_SERVICE_NAME: 'demo-game', GAME_URL: `http://127.0.0.1:${env.GAME_PORT ?? '8080'}` };
  say('info', 'demo players play the demo games every few seconds (DEMO_TRAFFIC=0 turns them off)');
}

/** The key in `keyFile`, minted into it (mode 0600) on the first start. */
async function ingestionKeyIn(keyFile) {
  if (existsSync(keyFile)) {
    chmodSync(keyFile, 0o600);
    return readFileSync(keyFile, 'utf8').trim();
  }
  const { mintIngestionKey } = await import('../packages/observability-service/dist/keys/ingestion-key-format.js');
  const { key } = mintIngestionKey();
  mkdirSync(join(keyFile, '..'), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

const services = (requested.length > 0 ? requested : known).map((name) => {
  return { name, entry: `packages/${name}/dist/main.js`, nodeFlags: serviceNodeFlags(name) };
});
/** Signals passed on to the services: a service ended by one of them stopped as asked. */
const passedOn = new Set();
/** Why the services are being stopped, for the last line. */
let stopReason;
let exitCode = 0;
let running = services.length;
const children = services.map(({ name, entry, nodeFlags }) => {
  // The IPC channel is how a service notices this launcher is gone (it closes when we die).
  const child = spawn(process.execPath, [...nodeFlags, entry], { env: { ...env, ...serviceEnv[name], PLAYSTACK_LAUNCHER_CHANNEL: '1' }, stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true });
  child.on('exit', (code, signal) => {
    const failed = signal ? !passedOn.has(signal) : code !== 0;
    if (failed) {
      say('error', `${name} exited with ${signal ?? code}`);
      if (exitCode === 0) exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
    }
    running -= 1;
    if (running === 0) {
      const names = services.map((service) => service.name).join(' and ');
      say(exitCode === 0 ? 'info' : 'error', `${names} stopped${stopReason ? ` (${stopReason})` : ''}; exit ${exitCode}`);
      process.exit(exitCode);
    }
    // One service stopping on its own takes the others down too, so a supervisor notices. Once
    // they were asked to stop, each is already on its way: a second signal would cut it short.
    if (passedOn.size === 0) passOn('SIGTERM', `${name} exited`);
  });
  return child;
});

// The demo players: not a service (their end ends nothing); they go when this launcher goes (the
// IPC channel closes) or when the services are asked to stop.
const demoTraffic = demoTrafficEnv && spawn(process.execPath, ['examples/demo-game/traffic.mjs'], { env: demoTrafficEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
demoTraffic?.on('exit', (code, signal) => {
  if (passedOn.size === 0) say('warn', `the demo players stopped (${signal ?? code}); the services go on`);
});

let lastPassedOn = { signal: '', at: 0 };

/** Asks every running service to stop: once per request, so a second Ctrl-C still means "now". */
function passOn(signal, reason) {
  const now = Date.now();
  if (signal === lastPassedOn.signal && now - lastPassedOn.at < repeatWindowMs) return;
  lastPassedOn = { signal, at: now };
  stopReason ??= reason;
  passedOn.add(signal);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  if (demoTraffic && demoTraffic.exitCode === null && demoTraffic.signalCode === null) demoTraffic.kill('SIGTERM');
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => passOn(signal, signal));

// Output gone: the services write to the same terminal or pipe, and nobody watches them any
// more; they are stopped as on SIGTERM (each would also stop at its own next line).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    outputGone = true;
    passOn('SIGTERM', `standard output is gone: ${error.code ?? error.message}`);
  });
}

// A parent that dies leaves this process to be adopted by another (init, or a subreaper): a
// changed parent pid is the only sign of it.
const parent = process.ppid;
const parentWatch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(parentWatch);
  passOn('SIGTERM', `parent process ${parent} is gone`);
}, parentCheckIntervalMs).unref();
