// Run submissions over HTTP: accepted runs per second and p50/p99 latency of
// POST /v1/games/demo/runs/score (bounded-score, six leaderboard writes per run), on SQLite
// (WAL, synchronous=normal and =full) and on PostgreSQL, next to the ceiling of a bare Fastify
// route taking the same body and answering the same response.
//
//   npx tsx --conditions=source bench/runs.ts
//
// The server under test runs in a child process, so it has a core of its own while autocannon
// drives it from this one. The child's own CPU time per accepted run is printed too: on a shared
// machine it is the figure that does not depend on what else is running (runs per CPU-second
// is what one core gives when it is the server's alone). BENCH_DURATION_S (default 10) and BENCH_CONNECTIONS (default 64) set
// the load; BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds the PostgreSQL run, in a schema of its
// own that is dropped afterwards.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp, loadGameConfig } from '@playstack/game-service';

// autocannon ships no types; these are the parts used here, kept local to this file.
interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}
interface LoadResult {
  duration: number;
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest[];
}) => Promise<LoadResult>;

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const playerCount = 500;
const runPath = '/v1/games/demo/runs/score';
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** What the parent asks a child to serve. */
type ServeRequest = { role: 'game'; env: Record<string, string> } | { role: 'ceiling'; responseBody: string };

// ---------------------------------------------------------------------------------------------
// Child process: serves the game service, or the bare ceiling route, on an ephemeral port.

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'game') {
    const config = loadGameConfig({
      ...request.env,
      LOG_LEVEL: 'silent',
      GAME_DEV_AUTH: '1',
      GAME_AUTH_RATE_LIMIT_MAX: '1000000',
      GAME_PLAYER_RATE_LIMIT_MAX: '1000000',
      GAME_RUN_RATE_LIMIT_MAX: '1000000',
    });
    const app = await buildApp(config);
    await app.listen({ port: 0, host: '127.0.0.1' });
    process.send!({ port: (app.server.address() as { port: number }).port });
    answerControlMessages(() => app.close());
    return;
  }
  // The ceiling: the same framework, body parsing and response size, no work.
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 });
  app.post('/v1/games/:gameId/runs/:adapterId', async (_req, reply) => reply.type('application/json; charset=utf-8').send(request.responseBody));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ port: (app.server.address() as { port: number }).port });
  answerControlMessages(() => app.close());
}

/** `cpu`: reply with this process's CPU time so far (µs); `stop`: close and exit. */
function answerControlMessages(close: () => Promise<void>): void {
  process.on('message', (message: string) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ cpuMicros: usage.user + usage.system });
    } else {
      void close().then(() => process.exit(0));
    }
  });
}

if (process.argv[2] === 'serve') {
  process.once('message', (request: ServeRequest) => void serve(request));
} else {
  await main();
}

// ---------------------------------------------------------------------------------------------
// Parent: starts servers, signs players in, drives load, prints figures.

interface Server {
  baseUrl: string;
  /** The server process's CPU time so far, in µs. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(request: ServeRequest): Promise<Server> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['serve'], {
    execArgv: ['--import', 'tsx', '--conditions=source'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.send(request);
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message: { cpuMicros: number }) => resolve(message.cpuMicros));
        child.send('cpu');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

async function signIn(baseUrl: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ authorizationCode: `dev:bench-${i}` }),
    });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    tokens.push(((await response.json()) as { accessToken: string }).accessToken);
  }
  return tokens;
}

interface Figures {
  name: string;
  accepted: number;
  other: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Server CPU time per successful request, in µs. */
  cpuMicrosPerRequest: number;
}

/** Drives POST runPath with a fresh runId (and a rotating player) per request. */
async function load(name: string, server: Server, tokens: readonly string[]): Promise<Figures> {
  let sequence = 0;
  const cpuBefore = await server.cpuMicros();
  const prefix = randomBytes(4).toString('hex');
  const result = await autocannon({
    url: server.baseUrl,
    connections,
    duration: durationSeconds,
    requests: [
      {
        method: 'POST',
        path: runPath,
        setupRequest: (request) => {
          sequence += 1;
          const score = (sequence * 7919) % 1_000_000;
          return {
            ...request,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[sequence % tokens.length]}` },
            body: JSON.stringify({ runId: `${prefix}-${sequence.toString(36).padStart(8, '0')}`, payload: { score, durationMs: 60_000 + (sequence % 1000) } }),
          };
        },
      },
    ],
  });
  const accepted = result['2xx'];
  const cpuMicros = (await server.cpuMicros()) - cpuBefore;
  return {
    cpuMicrosPerRequest: cpuMicros / Math.max(1, accepted),
    name,
    accepted,
    other: result.non2xx + result.errors + result.timeouts,
    perSecond: accepted / (result.duration || durationSeconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

async function benchGame(name: string, env: Record<string, string>): Promise<{ figures: Figures; sampleBody: string }> {
  const server = await startChild({ role: 'game', env });
  try {
    const tokens = await signIn(server.baseUrl, playerCount);
    // A first run, also the sample body the ceiling answers with.
    const sample = await fetch(`${server.baseUrl}${runPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[0]}` },
      body: JSON.stringify({ runId: `warmup-${randomBytes(6).toString('hex')}`, payload: { score: 1234, durationMs: 60_000 } }),
    });
    const sampleBody = await sample.text();
    if (sample.status !== 200) throw new Error(`warm-up run failed: ${sample.status} ${sampleBody}`);
    return { figures: await load(name, server, tokens), sampleBody };
  } finally {
    await server.stop();
  }
}

async function benchCeiling(responseBody: string): Promise<Figures> {
  const server = await startChild({ role: 'ceiling', responseBody });
  try {
    return await load('ceiling: bare Fastify route, same body and response', server, ['no-token']);
  } finally {
    await server.stop();
  }
}

async function withSqlite<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-runs-'));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withPostgresSchema<T>(url: string, body: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_runs_${randomBytes(4).toString('hex')}`;
  try {
    return await body(schema);
  } finally {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}

function print(rows: Figures[], ceiling: Figures): void {
  const pad = (text: string, width: number) => text.padEnd(width);
  const num = (value: number, width: number) => String(Math.round(value)).padStart(width);
  console.log(`\n${connections} connections, ${durationSeconds} s each, ${playerCount} players, body ~80 bytes, one new runId per request\n`);
  console.log(
    `${pad('scenario', 58)} ${'runs/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'failed'.padStart(7)} ${'of ceiling'.padStart(11)} ${'cpu µs/run'.padStart(11)} ${'runs/cpu-s'.padStart(11)}`,
  );
  for (const row of [...rows, ceiling]) {
    const ratio = row === ceiling ? '' : `${((row.perSecond / ceiling.perSecond) * 100).toFixed(1)} %`;
    console.log(
      `${pad(row.name, 58)} ${num(row.perSecond, 8)} ${num(row.p50, 7)} ${num(row.p99, 7)} ${num(row.other, 7)} ${ratio.padStart(11)} ${num(row.cpuMicrosPerRequest, 11)} ${num(1e6 / row.cpuMicrosPerRequest, 11)}`,
    );
  }
}

async function main(): Promise<void> {
  const rows: Figures[] = [];
  let sampleBody = '';
  for (const synchronous of ['normal', 'full'] as const) {
    const outcome = await withSqlite((dir) => benchGame(`game service, SQLite (WAL, synchronous=${synchronous})`, { DATA_DIR: dir, SQLITE_SYNCHRONOUS: synchronous }));
    rows.push(outcome.figures);
    sampleBody = outcome.sampleBody;
  }
  if (postgresUrl) {
    const outcome = await withSqlite((dir) =>
      withPostgresSchema(postgresUrl, (schema) => benchGame('game service, PostgreSQL', { DATA_DIR: dir, DATABASE_URL: postgresUrl, DATABASE_SCHEMA: schema })),
    );
    rows.push(outcome.figures);
  } else {
    console.log('(set BENCH_DATABASE_URL=postgres://... to include PostgreSQL)');
  }
  const ceiling = await benchCeiling(sampleBody);
  print(rows, ceiling);
}
