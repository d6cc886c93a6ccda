// Runs both services as child processes (the quick start: `npm start`). Each service also runs
// alone with `npm run start:game` / `npm run start:observability`. SIGTERM/SIGINT are passed on
// and this process exits once both children have exited.
import { spawn } from 'node:child_process';

const env = { ...process.env };
if (env.GAME_DEV_AUTH === undefined) {
  // The quick start is a local demo: let the demo game sign players in with dev:<name> codes.
  env.GAME_DEV_AUTH = '1';
  console.warn('npm start: GAME_DEV_AUTH=1 for the local demo (dev:<name> sign-in); never set it in production');
}

const services = [
  ['game-service', 'packages/game-service/dist/main.js'],
  ['observability-service', 'packages/observability-service/dist/main.js'],
];
let exitCode = 0;
let running = services.length;
const children = services.map(([name, entry]) => {
  const child = spawn(process.execPath, [entry], { env, stdio: 'inherit' });
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
