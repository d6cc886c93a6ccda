// Runs services as child processes, each with the Node.js flags its package.json lists under
// `nodeFlags` (docs/operations.md). With no arguments (`npm start`) both run, as the local demo;
// with service names (`npm run start:game`, `npm run start:observability`) only those, reading
// only the environment.
//
// Each service runs in a process group of its own, so a signal sent to this launcher's group
// (Ctrl-C in a terminal) reaches it once, passed on from here: a service takes a second SIGTERM or
// SIGINT as "stop now" and would otherwise get two at once. This process exits once every child
// has: with 0 when they stopped cleanly, else with the first failure's code (128 + signal number
// for a service killed by a signal this launcher did not pass on).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';

const known = ['game-service', 'observability-service'];
const requested = [...new Set(process.argv.slice(2))];
const unknown = requested.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  console.error(`unknown service(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  process.exit(2);
}

const env = { ...process.env };
if (requested.length === 0 && env.GAME_DEV_AUTH === undefined) {
  // The quick start is a local demo: let the demo game sign players in with dev:<name> codes.
  env.GAME_DEV_AUTH = '1';
  console.warn('npm start: GAME_DEV_AUTH=1 for the local demo (dev:<name> sign-in); never set it in production');
}

const services = (requested.length > 0 ? requested : known).map((name) => {
  const packageJson = JSON.parse(readFileSync(new URL(`../packages/${name}/package.json`, import.meta.url), 'utf8'));
  return { name, entry: `packages/${name}/dist/main.js`, nodeFlags: packageJson.nodeFlags ?? [] };
});
/** Signals passed on to the services: a service ended by one of them stopped as asked. */
const passedOn = new Set();
let exitCode = 0;
let running = services.length;
const children = services.map(({ name, entry, nodeFlags }) => {
  const child = spawn(process.execPath, [...nodeFlags, entry], { env, stdio: 'inherit', detached: true });
  child.on('exit', (code, signal) => {
    const failed = signal ? !passedOn.has(signal) : code !== 0;
    if (failed) {
      console.error(`${name} exited with ${signal ?? code}`);
      if (exitCode === 0) exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
    }
    running -= 1;
    if (running === 0) process.exit(exitCode);
    // One service stopping on its own takes the others down too, so a supervisor notices. Once
    // they were asked to stop, each is already on its way: a second signal would cut it short.
    if (passedOn.size === 0) passOn('SIGTERM');
  });
  return child;
});

/** Asks every running service to stop: once per signal received, so a second Ctrl-C still means "now". */
function passOn(signal) {
  passedOn.add(signal);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => passOn(signal));
