// Shared by HTTP benchmarks: a server in a child process (so it has a core of its own while
// autocannon drives it from the parent), loopback keep-alive load, and the figures printed.
//
// The servers run the workspace packages as built (`dist/`, what `npm start` runs), not their
// sources: tsx's on-the-fly transform adds helper calls of its own (a `__name` call each time a
// named closure is created), so it measured code that is not shipped. `serveOrRun` brings `dist/`
// up to date first (an incremental `tsc -b`), so edits are always measured. Benches pass a
// service's production Node.js flags (`serviceNodeFlags`) to it and to its ceiling alike.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

// autocannon ships no types; these are the parts used here. `Context` is autocannon's
// per-connection context object, passed to `setupRequest` and `onResponse`.
export interface LoadRequest<Context = unknown> {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest<Context>, context: Context) => LoadRequest<Context>;
  onResponse?: (status: number, body: string, context: Context) => void;
}
interface LoadResult {
  duration: number;
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as <Context>(options: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest<Context>[];
}) => Promise<LoadResult>;

/** One load run's figures: successful requests per second and latency percentiles in ms. */
export interface LoadFigures {
  readonly name: string;
  readonly ok: number;
  readonly failed: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** How long the run lasted (s), as autocannon reports it. */
  readonly seconds: number;
  /** The server process's CPU time per successful request (µs), when measured with `measureWithCpu`. */
  readonly cpuMicrosPerRequest?: number;
}

/** Drives `requests` against `baseUrl` over keep-alive connections for `durationSeconds`. */
export async function measure<Context>(
  name: string,
  baseUrl: string,
  options: { connections: number; durationSeconds: number; requests: LoadRequest<Context>[] },
): Promise<LoadFigures> {
  const result = await autocannon({ url: baseUrl, connections: options.connections, duration: options.durationSeconds, requests: options.requests });
  const ok = result['2xx'];
  const seconds = result.duration || options.durationSeconds;
  return {
    name,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
    perSecond: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    seconds,
  };
}

/**
 * `measure`, plus the server's own CPU time per successful request: on a machine shared with
 * other work, the figure that does not depend on what else runs. The child must answer with
 * `answerControlMessages`.
 */
export async function measureWithCpu<Info, Context>(
  name: string,
  server: ChildServer<Info>,
  options: { connections: number; durationSeconds: number; requests: LoadRequest<Context>[] },
): Promise<LoadFigures> {
  const before = await server.cpuMicros();
  const figures = await measure(name, server.baseUrl, options);
  const used = (await server.cpuMicros()) - before;
  return { ...figures, cpuMicrosPerRequest: used / Math.max(1, figures.ok) };
}

/** A scenario measured beside its ceiling in alternating rounds (`measurePaired`). */
export interface PairedFigures {
  readonly figures: LoadFigures;
  readonly ceiling: LoadFigures;
  /** Each round's throughput as a fraction of the ceiling's in the same round. */
  readonly ratios: readonly number[];
}

/**
 * A scenario and its ceiling, measured in `rounds` alternating slices of `durationSeconds` each
 * after a short warm-up of both. On a shared machine whose speed drifts over minutes, each
 * round's ratio compares two runs taken seconds apart; the median of the rounds is reported.
 */
export async function measurePaired<Context>(
  names: { figures: string; ceiling: string },
  servers: { figures: ChildServer<unknown>; ceiling: ChildServer<unknown> },
  options: { connections: number; durationSeconds: number; rounds: number; requests: LoadRequest<Context>[] },
): Promise<PairedFigures> {
  const [figures, ceiling] = await measureAlternating(
    [
      { name: names.figures, server: servers.figures },
      { name: names.ceiling, server: servers.ceiling },
    ],
    options,
  );
  return { figures: combineRounds(figures!), ceiling: combineRounds(ceiling!), ratios: figures!.map((f, i) => f.perSecond / ceiling![i]!.perSecond) };
}

/**
 * Several servers under the same load, measured in `rounds` alternating slices of
 * `durationSeconds` each after a short warm-up of each: on a shared machine whose speed drifts
 * over minutes, each round compares runs taken seconds apart. A server may have `requests` of its
 * own (e.g. with its own players' tokens). Returns each server's rounds.
 */
export async function measureAlternating<Context>(
  servers: ReadonlyArray<{ name: string; server: ChildServer<unknown>; requests?: LoadRequest<Context>[] }>,
  options: { connections: number; durationSeconds: number; rounds: number; requests: LoadRequest<Context>[] },
): Promise<LoadFigures[][]> {
  const forServer = (requests: LoadRequest<Context>[] | undefined) => ({ ...options, requests: requests ?? options.requests });
  for (const { server, requests } of servers) await measure('warm-up', server.baseUrl, { ...forServer(requests), durationSeconds: Math.min(2, options.durationSeconds) });
  const rounds: LoadFigures[][] = servers.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, { name, server, requests }] of servers.entries()) rounds[i]!.push(await measureWithCpu(name, server, forServer(requests)));
  }
  return rounds;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds of one scenario as one row: throughput over all of them, median p50, worst p99, CPU per request over all. */
export function combineRounds(rounds: readonly LoadFigures[]): LoadFigures {
  const ok = rounds.reduce((total, r) => total + r.ok, 0);
  const seconds = rounds.reduce((total, r) => total + r.seconds, 0);
  const cpuMicros = rounds.reduce((total, r) => total + (r.cpuMicrosPerRequest ?? 0) * r.ok, 0);
  return {
    name: rounds[0]!.name,
    ok,
    failed: rounds.reduce((total, r) => total + r.failed, 0),
    perSecond: ok / seconds,
    p50: median(rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    seconds,
    ...(rounds.every((r) => r.cpuMicrosPerRequest !== undefined) ? { cpuMicrosPerRequest: cpuMicros / Math.max(1, ok) } : {}),
  };
}

/** In a child server: `cpu` is answered with this process's CPU time so far (µs); any other message closes it. */
export function answerControlMessages(close: () => Promise<void>): void {
  process.on('message', (message: unknown) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ cpuMicros: usage.user + usage.system });
      return;
    }
    void close().then(() => process.exit(0));
  });
}

/**
 * In a child server: listens on an ephemeral loopback port, reports `{ port, ...info }` to the
 * parent and answers its control messages (`answerControlMessages`).
 */
export async function listenInChild(
  app: { listen(options: { port: number; host: string }): Promise<string>; server: { address(): unknown }; close(): Promise<void> },
  info: object = {},
): Promise<void> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ ...info, port: (app.server.address() as { port: number }).port });
  answerControlMessages(() => app.close());
}

/**
 * A bench's entry point: as `script serve` (the child `startChildServer` forks), serves the
 * request the parent sends; otherwise runs `main`. Call it last in the module: `main` starts at
 * once, and a module-level constant declared below the call is not yet initialized.
 */
export async function serveOrRun<Request>(serve: (request: Request) => Promise<void>, main: () => Promise<void>): Promise<void> {
  if (process.argv[2] === 'serve') {
    process.once('message', (request: Request) => void serve(request));
  } else {
    buildPackages();
    await main();
  }
}

/** The Node.js flags a service runs with in production, as `npm start` passes them. */
export { serviceNodeFlags } from '../../scripts/node-flags.mjs';

/** Brings the packages' `dist/` up to date with their sources, as `npm run build` does (incremental). */
function buildPackages(): void {
  const require = createRequire(import.meta.url);
  const tsc = require.resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-b'], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' });
  } catch {
    console.error('bench: the packages do not build (tsc -b, errors above)');
    process.exit(1);
  }
}

/** A server running in a child process of `script` (started with `serve` as its argument). */
export interface ChildServer<Info> {
  readonly baseUrl: string;
  /** What the child reported besides its port. */
  readonly info: Info;
  /** The child's CPU time so far (µs); the child must answer with `answerControlMessages`. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Forks `script serve`, sends it `request`, and waits for `{ port, ...info }`. The child resolves
 * `@playstack/*` to the built packages (no `source` condition); tsx only runs the bench file itself.
 */
export async function startChildServer<Info>(script: string, request: unknown, execArgv: string[] = []): Promise<ChildServer<Info>> {
  const child: ChildProcess = fork(script, ['serve'], {
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const message = await new Promise<{ port: number } & Info>((resolve, reject) => {
    child.once('message', (reply: { port: number } & Info) => resolve(reply));
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.send(request as object);
  });
  return {
    baseUrl: `http://127.0.0.1:${message.port}`,
    info: message,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        child.once('message', (reply: { cpuMicros: number }) => resolve(reply.cpuMicros));
        child.send('cpu');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/** `startChildServer`, runs `body` with the server, and stops it whatever happens. */
export async function withChildServer<Info, T>(
  script: string,
  request: unknown,
  body: (server: ChildServer<Info>) => Promise<T>,
  execArgv: string[] = [],
): Promise<T> {
  const server = await startChildServer<Info>(script, request, execArgv);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

/**
 * Prints figures as a table, each row beside its ceiling's throughput: the ratio of the two rows,
 * or with `ratios` (from `measurePaired`) their median and range over the rounds.
 */
export function printTable(rows: ReadonlyArray<{ figures: LoadFigures; ceiling?: LoadFigures; ratios?: readonly number[] }>): void {
  const num = (value: number, width: number, digits = 0) => value.toFixed(digits).padStart(width);
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  // Server CPU columns appear when the figures were taken with `measureWithCpu`.
  const withCpu = rows.some(({ figures }) => figures.cpuMicrosPerRequest !== undefined);
  const withRounds = rows.some(({ ratios }) => ratios !== undefined && ratios.length > 1);
  const cpuHeader = withCpu ? ` ${'cpu µs/req'.padStart(11)} ${'req/cpu-s'.padStart(10)}` : '';
  const roundsHeader = withRounds ? ` ${'rounds (min-max)'.padStart(17)}` : '';
  console.log(`${'scenario'.padEnd(56)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'failed'.padStart(7)} ${'of ceiling'.padStart(11)}${roundsHeader}${cpuHeader}`);
  for (const { figures, ceiling, ratios } of rows) {
    const ratio = ratios ? percent(median(ratios)) : ceiling ? percent(figures.perSecond / ceiling.perSecond) : '';
    const range = withRounds ? ` ${(ratios && ratios.length > 1 ? `${(Math.min(...ratios) * 100).toFixed(1)}-${(Math.max(...ratios) * 100).toFixed(1)} %` : '').padStart(17)}` : '';
    const cpu = figures.cpuMicrosPerRequest;
    const cpuColumns = withCpu ? (cpu === undefined ? ' '.repeat(23) : ` ${num(cpu, 11)} ${num(1e6 / cpu, 10)}`) : '';
    console.log(
      `${figures.name.padEnd(56)} ${num(figures.perSecond, 8)} ${num(figures.p50, 7, 1)} ${num(figures.p99, 7, 1)} ${num(figures.failed, 7)} ${ratio.padStart(11)}${range}${cpuColumns}`,
    );
  }
}
