// Runs services as child processes, each with the Node.js flags its package.json lists under
// `nodeFlags` (docs/operations.md). With no arguments (`npm start`) both run, as the local demo;
// with service names (`npm run start:game`, `npm run start:observability`) only those, reading
// only the environment. SIGTERM/SIGINT are passed on and this process exits once every child has.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const known = ['game-service', 'observability-service'];
const requested = process.argv.slice(2);
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
let exitCode = 0;
let running = services.length;
const children = services.map(({ name, entry, nodeFlags }) => {
  const child = spawn(process.execPath, [...nodeFlags, entry], { env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (code !== 0 && !signal) exitCode = code ?? 1;
    running -= 1;
    if (running === 0) process.exit(exitCode);
    // One service stopping on its own takes the other down too, so a supervisor notices.
    for (const other of children) if (other !== child && other.exitCode === null) other.kill('SIGTERM');
    if (code !== 0) console.error(`${name} exited with ${signal ?? code}`);
  });
  return child;
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
}
