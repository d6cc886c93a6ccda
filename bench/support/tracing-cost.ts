// Shared by the game service's benchmarks: the cost of tracing itself. With BENCH_TRACING=1 a
// bench runs the same service three times side by side (tracing off, on at 10% sampling, on at
// 100%), exporting over OTLP/HTTP protobuf to a sink in the bench process, and measures them in
// alternating rounds with their ceiling; each is printed as a ratio to tracing off.
import { createServer, type Server } from 'node:http';
import { combineRounds, median, type LoadFigures } from './http-load.js';

/** Whether this run measures tracing's cost (BENCH_TRACING=1). */
export const tracingCostRequested = process.env.BENCH_TRACING === '1';

/** A configuration of the service's tracing: the OTEL_* variables its process starts with. */
export interface TracingVariant {
  label: string;
  otel: Record<string, string>;
}

/** Off, 10% and 100%, the last two exporting to `sinkUrl` as `npm start` does (http/protobuf). */
export function tracingVariants(sinkUrl: string): TracingVariant[] {
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
  return [
    { label: 'tracing off', otel: {} },
    { label: 'tracing on, 10% sampled', otel: { ...on, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
    { label: 'tracing on, 100% sampled', otel: { ...on, OTEL_TRACES_SAMPLER: 'parentbased_always_on' } },
  ];
}

/** In a server child: the variant's variables, set before the service starts (the SDK reads process.env). */
export function applyTracingVariant(otel: Record<string, string> | undefined): void {
  Object.assign(process.env, otel ?? {});
}

/** An OTLP/HTTP receiver that takes every export and keeps nothing: what the bench's services export to. */
export interface OtlpSink {
  readonly url: string;
  /** Export requests and bytes received so far. */
  readonly received: { requests: number; bytes: number };
}

/** Runs `body` with an `OtlpSink` listening on loopback, closed afterwards. */
export async function withOtlpSink<T>(body: (sink: OtlpSink) => Promise<T>): Promise<T> {
  const received = { requests: 0, bytes: 0 };
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      received.bytes += chunk.length;
    });
    request.on('end', () => {
      received.requests += 1;
      // An empty ExportTraceServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    return await body({ url: `http://127.0.0.1:${port}`, received });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** One scenario's rounds under each variant (in `tracingVariants` order) and under its ceiling. */
export interface TracingCostRow {
  scenario: string;
  variants: ReadonlyArray<{ label: string; rounds: readonly LoadFigures[] }>;
  ceiling: readonly LoadFigures[];
}

/**
 * Prints each variant's throughput and server CPU per request with its cost against tracing off,
 * each the median over rounds of the round's ratio (runs seconds apart): throughput, and requests
 * per CPU-second of the server (what one core gives; the steadier figure on a shared machine).
 */
export function printTracingCost(rows: readonly TracingCostRow[]): void {
  const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
  const range = (ratios: readonly number[]) => `${(Math.min(...ratios) * 100).toFixed(1)}-${(Math.max(...ratios) * 100).toFixed(1)} %`;
  console.log(
    `${'scenario'.padEnd(60)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'failed'.padStart(7)} ${'cpu µs/req'.padStart(11)} ${'req/s of off'.padStart(13)} ${'rounds (min-max)'.padStart(17)} ${'req/cpu-s of off'.padStart(17)} ${'rounds (min-max)'.padStart(17)}`,
  );
  for (const row of rows) {
    const off = row.variants[0]!.rounds;
    const lines = [...row.variants.map((v) => ({ label: v.label, rounds: v.rounds })), { label: 'ceiling: bare route, same response', rounds: row.ceiling }];
    for (const { label, rounds } of lines) {
      const all = combineRounds(rounds);
      const ratios = rounds.map((r, i) => r.perSecond / off[i]!.perSecond);
      const cpuRatios = rounds.map((r, i) => off[i]!.cpuMicrosPerRequest! / r.cpuMicrosPerRequest!);
      console.log(
        `${`${row.scenario}: ${label}`.padEnd(60)} ${all.perSecond.toFixed(0).padStart(8)} ${all.p50.toFixed(1).padStart(7)} ${all.p99.toFixed(1).padStart(7)} ${String(all.failed).padStart(7)} ${all.cpuMicrosPerRequest!.toFixed(0).padStart(11)} ${pct(median(ratios)).padStart(13)} ${range(ratios).padStart(17)} ${pct(median(cpuRatios)).padStart(17)} ${range(cpuRatios).padStart(17)}`,
      );
    }
  }
  console.log('\nTarget: tracing off within noise of the figures without it; 10% sampled at 90 % of off or more (issue 23).');
}
