// HTTP load with wrk (Debian's `wrk`, a C load generator): latency at microsecond resolution
// (autocannon rounds to whole milliseconds) and far less client CPU per request, which matters
// when the client shares two cores with the server. Each request is drawn at random from a file of
// `path<TAB>authorization` lines, so a run reads many players and cursors, not one.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median, type ChildServer } from './http-load.js';

const run = promisify(execFile);
const wrkBinary = process.env.BENCH_WRK ?? 'wrk';
/** wrk's client threads: the machine's two cores are shared with the servers. */
const wrkThreads = 2;

/** One wrk run's figures; latencies in µs. */
export interface WrkFigures {
  readonly name: string;
  readonly ok: number;
  readonly failed: number;
  readonly perSecond: number;
  readonly p50Micros: number;
  readonly p99Micros: number;
  readonly p999Micros: number;
  /** The server process's CPU time per successful request (µs). */
  readonly cpuMicrosPerRequest: number;
}

// Each thread loads the request file and draws lines at random (seeded per thread); `done` prints
// one JSON line (latency in µs, as wrk records it).
const script = `
local lines = {}
local id = 0
local counter = 1
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  math.randomseed(os.time() * 1000 + id)
  for line in io.lines(args[1]) do
    local path, auth = line:match("^([^\\t]+)\\t(.*)$")
    lines[#lines + 1] = wrk.format("GET", path, auth ~= "" and { Authorization = auth } or {})
  end
end
function request()
  return lines[math.random(#lines)]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nWRK_RESULT {"requests":%d,"durationMicros":%d,"socketErrors":%d,"non2xx":%d,"p50":%d,"p99":%d,"p999":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
`;

/** Writes the Lua script and a request file into `dir`; returns the file to pass to `measureWrk`. */
export function writeWrkRequests(dir: string, name: string, requests: ReadonlyArray<{ path: string; authorization?: string }>): string {
  writeFileSync(join(dir, 'wrk-requests.lua'), script);
  const file = join(dir, `wrk-${name}.tsv`);
  writeFileSync(file, requests.map((r) => `${r.path}\t${r.authorization ?? ''}`).join('\n') + '\n');
  return file;
}

/** Drives random lines of `requestFile` against the server for `durationSeconds`, measuring its CPU too. */
export async function measureWrk(
  name: string,
  server: ChildServer<unknown>,
  options: { connections: number; durationSeconds: number; requestFile: string },
): Promise<WrkFigures> {
  const scriptFile = join(options.requestFile, '..', 'wrk-requests.lua');
  const cpuBefore = await server.cpuMicros();
  const { stdout } = await run(
    wrkBinary,
    ['-t', String(wrkThreads), '-c', String(options.connections), '-d', `${options.durationSeconds}s`, '--timeout', '10s', '-s', scriptFile, server.baseUrl, '--', options.requestFile],
    { maxBuffer: 1 << 20 },
  );
  const cpuMicros = (await server.cpuMicros()) - cpuBefore;
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_RESULT '));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  const result = JSON.parse(line.slice('WRK_RESULT '.length)) as { requests: number; durationMicros: number; socketErrors: number; non2xx: number; p50: number; p99: number; p999: number };
  const ok = result.requests - result.non2xx;
  return {
    name,
    ok,
    failed: result.non2xx + result.socketErrors,
    perSecond: ok / (result.durationMicros / 1e6),
    p50Micros: result.p50,
    p99Micros: result.p99,
    p999Micros: result.p999,
    cpuMicrosPerRequest: cpuMicros / Math.max(1, ok),
  };
}

/** A scenario and its ceiling, in alternating rounds (after a warm-up of each); ratios per round. */
export interface WrkPaired {
  readonly rounds: readonly WrkFigures[];
  readonly ceilingRounds: readonly WrkFigures[];
  readonly ratios: readonly number[];
}

export async function measureWrkPaired(
  names: { figures: string; ceiling: string },
  servers: { figures: ChildServer<unknown>; ceiling: ChildServer<unknown> },
  options: { connections: number; durationSeconds: number; rounds: number; requestFile: string },
): Promise<WrkPaired> {
  const warmUp = { ...options, durationSeconds: Math.min(2, options.durationSeconds) };
  await measureWrk('warm-up', servers.figures, warmUp);
  await measureWrk('warm-up', servers.ceiling, warmUp);
  const rounds: WrkFigures[] = [];
  const ceilingRounds: WrkFigures[] = [];
  for (let round = 0; round < options.rounds; round++) {
    rounds.push(await measureWrk(names.figures, servers.figures, options));
    ceilingRounds.push(await measureWrk(names.ceiling, servers.ceiling, options));
  }
  return { rounds, ceilingRounds, ratios: rounds.map((r, i) => r.perSecond / ceilingRounds[i]!.perSecond) };
}

/** Prints each paired scenario and its ceiling: medians of the rounds (throughput, p50, p99, p99.9, CPU) and the ratio's median and range. */
export function printWrkTable(rows: ReadonlyArray<{ name: string; paired: WrkPaired }>): void {
  const med = (figures: readonly WrkFigures[], pick: (f: WrkFigures) => number) => median(figures.map(pick));
  const line = (name: string, figures: readonly WrkFigures[], ratio: string) =>
    console.log(
      `${name.padEnd(52)} ${med(figures, (f) => f.perSecond).toFixed(0).padStart(8)} ${med(figures, (f) => f.p50Micros).toFixed(0).padStart(7)} ` +
        `${med(figures, (f) => f.p99Micros).toFixed(0).padStart(7)} ${Math.max(...figures.map((f) => f.p99Micros)).toFixed(0).padStart(8)} ` +
        `${med(figures, (f) => f.p999Micros).toFixed(0).padStart(8)} ${String(figures.reduce((t, f) => t + f.failed, 0)).padStart(6)} ${ratio.padStart(24)} ${med(figures, (f) => f.cpuMicrosPerRequest).toFixed(1).padStart(10)}`,
    );
  console.log(
    `${'scenario (medians of the rounds)'.padEnd(52)} ${'req/s'.padStart(8)} ${'p50 µs'.padStart(7)} ${'p99 µs'.padStart(7)} ${'max p99'.padStart(8)} ${'p99.9 µs'.padStart(8)} ${'failed'.padStart(6)} ${'of ceiling (min-max)'.padStart(24)} ${'cpu µs/req'.padStart(10)}`,
  );
  for (const { name, paired } of rows) {
    const percent = (v: number) => `${(v * 100).toFixed(1)}`;
    line(name, paired.rounds, `${percent(median(paired.ratios))} % (${percent(Math.min(...paired.ratios))}-${percent(Math.max(...paired.ratios))})`);
    line(`  ceiling beside it`, paired.ceilingRounds, '');
  }
}
