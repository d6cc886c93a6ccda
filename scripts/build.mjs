// Builds what `npm start` runs: the services (`tsc -b`, into each package's dist/) and the
// dashboard (`vite build`, into packages/observability-web/dist/). `npm run build` builds both;
// `npm start` calls buildIfStale(), which builds only what changed since its last build, so a
// start with nothing changed costs a directory walk, not a build.
//
// "Changed" is by modification time, as make does: a build is stale when its outputs are missing
// or when any of its inputs (sources, its package.json and tsconfig, the lockfile) is newer than
// the stamp written when it last succeeded. The stamp carries the time the build started, so a
// file saved during a build counts as changed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
/** A package's command-line entry, from its package.json `bin` (packages need not export it). */
function binOf(packageName, command) {
  const manifest = require.resolve(`${packageName}/package.json`);
  return join(dirname(manifest), require(manifest).bin[command]);
}
const stampDir = join(root, 'node_modules', '.cache', 'playstack-build');
const rootInputs = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'];
const servicePackages = ['server-kit', 'game-client', 'game-service', 'observability-service'];

/** What each build reads, what it must leave behind, and how to run it. */
export const builds = [
  {
    name: 'services',
    inputs: [...rootInputs, ...servicePackages.flatMap((name) => [`packages/${name}/src`, `packages/${name}/package.json`, `packages/${name}/tsconfig.json`])],
    outputs: ['packages/game-service/dist/main.js', 'packages/observability-service/dist/main.js', 'packages/observability-service/dist/telemetry-copy.js'],
    command: () => [process.execPath, [binOf('typescript', 'tsc'), '-b'], root],
  },
  {
    name: 'dashboard',
    inputs: [...rootInputs, ...['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'].map((file) => `packages/observability-web/${file}`)],
    outputs: ['packages/observability-web/dist/index.html'],
    // The dashboard's typecheck runs with `npm run typecheck`; serving it needs only the bundle.
    command: () => [process.execPath, [binOf('vite', 'vite'), 'build', '--logLevel', 'warn'], join(root, 'packages/observability-web')],
  },
];

/** The newest file under `path` (a file or a directory), as [mtimeMs, path]; [0, ''] when absent. */
function newestUnder(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return [0, ''];
  }
  if (!stats.isDirectory()) return [stats.mtimeMs, path];
  let newest = [stats.mtimeMs, path];
  for (const entry of readdirSync(path)) {
    const found = newestUnder(join(path, entry));
    if (found[0] > newest[0]) newest = found;
  }
  return newest;
}

function stampOf(build) {
  return join(stampDir, `${build.name}.stamp`);
}

/** Why `build` must run, or undefined when its outputs are up to date. */
export function staleReason(build) {
  const missing = build.outputs.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  let stampedAt;
  try {
    stampedAt = statSync(stampOf(build)).mtimeMs;
  } catch {
    return 'no earlier build by npm start or npm run build';
  }
  for (const input of build.inputs) {
    const [mtimeMs, path] = newestUnder(join(root, input));
    if (mtimeMs > stampedAt) return `${relative(root, path)} changed`;
  }
  return undefined;
}

/** Runs `build`; on success stamps it with the time it started. Returns the exit status. */
export function runBuild(build) {
  const startedAt = new Date();
  const [command, args, cwd] = build.command();
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  const status = result.status ?? 1;
  if (status === 0) {
    mkdirSync(dirname(stampOf(build)), { recursive: true });
    writeFileSync(stampOf(build), `${startedAt.toISOString()}\n`);
    utimesSync(stampOf(build), startedAt, startedAt);
  }
  return status;
}

/** Held while a process builds: a directory (created atomically) holding the holder's pid. */
export const defaultBuildLock = join(stampDir, 'lock');

function holderAlive(lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    // Created a moment ago, its pid not written yet: alive. A holder killed in that moment leaves a
    // lock without a pid, taken over once it is a minute old.
    try {
      return Date.now() - statSync(lock).mtimeMs < 60_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Runs `body` while holding the build lock, waiting for another process's build to finish first
 * (two `npm start`s in one checkout at once; the tests start several): two builds writing the same
 * dist/ files at once leave a service reading a file half written. A lock whose holder has died
 * is taken over. `say` hears once that this process waits.
 */
export function withBuildLock(body, say = () => {}, lock = defaultBuildLock) {
  mkdirSync(dirname(lock), { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (!holderAlive(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!told) say('waiting for another build in this checkout to finish');
      told = true;
      Atomics.wait(pause, 0, 0, 100);
    }
  }
  try {
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return body();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds whatever is stale (of the builds named in `only`, by default all), telling `say` what
 * and why; under the build lock, so what another process built meanwhile is not built again.
 * Returns 0, or the failing build's exit status.
 */
export function buildIfStale(say, only = builds.map((build) => build.name)) {
  const chosen = builds.filter((candidate) => only.includes(candidate.name));
  return withBuildLock(
    () =>
      untilOneFails(chosen, (build) => {
        const reason = staleReason(build);
        if (reason === undefined) return 0;
        say(`building the ${build.name} (${reason})`);
        return runBuild(build);
      }),
    say,
  );
}

/** Runs `run` on each build in turn; the first non-zero status stops it and is returned (else 0). */
function untilOneFails(list, run) {
  for (const build of list) {
    const status = run(build);
    if (status !== 0) return status;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const status = withBuildLock(() => untilOneFails(builds, runBuild), (message) => console.error(message));
  if (status !== 0) process.exit(status);
}
