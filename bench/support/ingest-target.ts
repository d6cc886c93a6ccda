// A server for bench/ingest.ts, in its own process so the load generator does not share its
// event loop:  node --import tsx --conditions=source bench/support/ingest-target.ts service|bare
// Prints "listening <port>" once it accepts requests; SIGTERM closes it gracefully.
// GET /bench/cpu-seconds reports the CPU time the process has used.
import Fastify, { type FastifyInstance } from 'fastify';

const mode = process.argv[2];
const bodyLimit = 5 * 1024 * 1024;

async function start(): Promise<FastifyInstance> {
  if (mode === 'bare') {
    // The ceiling: the same body parsed by Fastify's JSON parser, no validation or storage.
    const bare = Fastify({ bodyLimit });
    bare.post('/api/v1/ingest', async (request, reply) => {
      const body = request.body as { occurrences: unknown[] };
      return reply.code(202).send({ accepted: { occurrences: body.occurrences.length }, rejected: { occurrences: 0 }, truncated: { strings: 0 }, errors: [] });
    });
    return bare;
  }
  // Imported here so the bare ceiling loads nothing of the service.
  const { buildApp, loadObservabilityConfig } = await import('@playstack/observability-service');
  return (await buildApp(loadObservabilityConfig({ ...process.env, LOG_LEVEL: 'warn' }))) as unknown as FastifyInstance;
}

const app = await start();
// CPU time the server used, so the benchmark can report throughput per CPU-second, which stays
// meaningful when other processes compete for the cores.
app.get('/bench/cpu-seconds', async () => {
  const { user, system } = process.cpuUsage();
  return { cpuSeconds: (user + system) / 1e6 };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
