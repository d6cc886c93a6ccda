// What authentication costs the observability service:
//  1. `app.ingestionKeys.verify()` per envelope (cached named key, legacy key, unknown key), in
//     process, next to the ceiling of the least work any hashed-key check needs (one SHA-256
//     and one Map lookup);
//  2. a signed-in dashboard request (GET /api/v1/auth/session with the obs_session cookie: session
//     and user lookups) over HTTP, next to a bare Fastify route answering the same body and to
//     the same server's /healthz (its platform hooks without the session lookup).
//
//   npx tsx --conditions=source bench/dashboard-auth.ts
//
// The HTTP server runs in a child process so autocannon does not share its core. SQLite always;
// PostgreSQL too with BENCH_DATABASE_URL or TEST_DATABASE_URL. BENCH_DURATION_S (default 5) and
// BENCH_CONNECTIONS (default 16) set the load.
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { listenInChild, serveOrRun, measureWithCpu, printTable, serviceNodeFlags, withChildServer, type LoadFigures } from './support/http-load.js';
import { onPostgres, withTempDir } from './support/scratch.js';

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const legacyKey = 'legacy-bench-key-0123456789';
const admin = { email: 'bench@example.com', password: 'bench password 123', name: 'Bench' };

const script = fileURLToPath(import.meta.url);
/** The observability service's production Node flags, for it and for its ceiling alike. */
const serviceFlags = serviceNodeFlags('observability-service');

type ServeRequest = { role: 'service'; env: Record<string, string> } | { role: 'ceiling'; responseBody: string };

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'service') {
    await listenInChild(await buildApp(loadObservabilityConfig({ ...request.env, LOG_LEVEL: 'silent' })));
    return;
  }
  // The same framework and response body, no work.
  const bare = Fastify({ logger: false });
  bare.get('/api/v1/auth/session', async (_request, reply) => reply.type('application/json; charset=utf-8').send(request.responseBody));
  await listenInChild(bare);
}

/** Calls `fn` for about `ms` milliseconds; answers calls per second. */
async function opsPerSecond(fn: () => unknown, ms = 1_000): Promise<number> {
  const batch = 1_000;
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (let i = 0; i < batch; i += 1) await fn();
    calls += batch;
  }
  return calls / ((performance.now() - started) / 1000);
}

async function benchVerifier(dataDir: string): Promise<void> {
  const app = await buildApp(loadObservabilityConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, SERVICE_API_KEY: legacyKey }));
  try {
    const setup = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: admin });
    const cookie = setup.cookies.find((c) => c.name === 'obs_session')!.value;
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/admin/keys',
      cookies: { obs_session: cookie },
      headers: { 'x-csrf-token': setup.json().csrfToken },
      payload: { name: 'bench' },
    });
    const key = created.json().key as string;
    const namedHeader = `Bearer ${key}`;
    const unknownHeader = `Bearer obsk_00000000_${randomBytes(32).toString('base64url')}`;
    if (!(await app.ingestionKeys.verify(namedHeader))) throw new Error('the created key does not verify');
    const map = new Map([[createHash('sha256').update(key).digest('hex'), { keyId: 'x', name: 'bench', legacy: false }]]);
    const ceiling = await opsPerSecond(() => map.get(createHash('sha256').update(key).digest('hex')));
    const rows = [
      ['ceiling: sha256 + Map.get', ceiling],
      ['verify(named key, cached)', await opsPerSecond(() => app.ingestionKeys.verify(namedHeader))],
      ['verify(legacy SERVICE_API_KEY)', await opsPerSecond(() => app.ingestionKeys.verify(`Bearer ${legacyKey}`))],
      ['verify(unknown key, cached miss)', await opsPerSecond(() => app.ingestionKeys.verify(unknownHeader))],
    ] as const;
    console.log('\ningestion key verification (in process, one core)');
    console.log('| case | calls/s | of ceiling |\n|---|---:|---:|');
    for (const [name, rate] of rows) console.log(`| ${name} | ${Math.round(rate).toLocaleString('en')} | ${(rate / ceiling).toFixed(2)} |`);
  } finally {
    await app.close();
  }
}

function sessionRequest(cookie: string, path = '/api/v1/auth/session') {
  return { connections, durationSeconds, requests: [{ method: 'GET', path, headers: { cookie: `obs_session=${cookie}` } }] };
}

async function benchSessions(label: string, env: Record<string, string>): Promise<{ rows: LoadFigures[]; sampleBody: string }> {
  return withChildServer<object, { rows: LoadFigures[]; sampleBody: string }>(script, { role: 'service', env } satisfies ServeRequest, async (server) => {
    const setup = await fetch(`${server.baseUrl}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
    const cookie = /obs_session=([^;]+)/.exec(setup.headers.get('set-cookie') ?? '')?.[1];
    if (setup.status !== 200 || !cookie) throw new Error(`setup failed: ${setup.status}`);
    const sampleBody = await setup.text();
    // /healthz on the same server carries the same cookie through the same platform hooks
    // without looking the session up: the gap between the two rows is the session's own cost.
    const platform = await measureWithCpu(`service /healthz, same cookie, ${label}`, server, sessionRequest(cookie, '/healthz'));
    const session = await measureWithCpu(`session lookup, ${label}`, server, sessionRequest(cookie));
    return { rows: [platform, session], sampleBody };
  }, serviceFlags);
}

async function main(): Promise<void> {
  const tempDirPrefix = 'bench-dashboard-auth-';
  await withTempDir(tempDirPrefix, (dir) => benchVerifier(dir));

  const rows: LoadFigures[] = [];
  const sqlite = await withTempDir(tempDirPrefix, (dir) => benchSessions('SQLite', { DATA_DIR: dir }));
  rows.push(...sqlite.rows);
  const postgres = await onPostgres({ dirPrefix: tempDirPrefix, schemaPrefix: 'bench_auth_' }, (env) => benchSessions('PostgreSQL', env));
  if (postgres) rows.push(...postgres.rows);
  const ceiling = await withChildServer<object, LoadFigures>(
    script,
    { role: 'ceiling', responseBody: sqlite.sampleBody } satisfies ServeRequest,
    (server) => measureWithCpu('ceiling: bare Fastify route, same body', server, sessionRequest('x')),
    serviceFlags,
  );
  console.log(`\nsigned-in dashboard request over HTTP (${connections} connections, ${durationSeconds} s each)`);
  printTable([{ figures: ceiling }, ...rows.map((figures) => ({ figures, ceiling }))]);
}

await serveOrRun(serve, main);
