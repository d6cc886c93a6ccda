import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../src/index.js';
import { traceRequests } from '../src/telemetry/request-spans.js';
import { samplerFromEnv } from '../src/telemetry/tracing.js';
import { OtlpJsonReceiver } from '../src/testing/index.js';

const variables = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG'] as const;
const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const traceparent = (flags: '00' | '01') => `00-${traceId}-00f067aa0ba902b7-${flags}`;

describe('samplerFromEnv', () => {
  it('reads OTEL_TRACES_SAMPLER(_ARG) as the SDK does, with the ratio a new trace is sampled at', () => {
    const ratio = (env: Record<string, string>) => samplerFromEnv(env).rootRatio;
    expect(ratio({})).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(0);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toBe(0.1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: ' 0.25 ' })).toBe(0.25);
    // A blank, unreadable or out-of-range ratio is 1, as in the SDK; an unknown sampler is the default.
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toBe(1);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).sampler.toString()).toContain('TraceIdRatioBased{0.1}');
  });
});

describe('request sampling', () => {
  let receiver = new OtlpJsonReceiver();
  let tracing: Tracing | undefined;
  let app: FastifyInstance | undefined;

  afterEach(async () => {
    await app?.close();
    await tracing?.shutdown();
    for (const name of variables) delete process.env[name];
    await receiver.close();
  });

  async function tracedApp(sampler: Record<string, string>): Promise<{ app: FastifyInstance; recorded: () => boolean[] }> {
    receiver = new OtlpJsonReceiver();
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start(), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50', ...sampler });
    tracing = (await startTracing({ serviceName: 'request-sampling-test', serviceVersion: '0' }))!;
    const seen: boolean[] = [];
    app = Fastify();
    traceRequests(app, tracing);
    app.get('/x', async (request) => {
      seen.push(request.otelSpan?.isRecording() === true);
      return { ok: true };
    });
    return { app, recorded: () => seen };
  }

  it('samples new traces at the configured ratio, each recorded once (not decided twice)', async () => {
    const { app, recorded } = await tracedApp({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    for (let i = 0; i < 400; i++) expect((await app.inject({ method: 'GET', url: '/x' })).statusCode).toBe(200);
    const sampled = recorded().filter(Boolean).length;
    // Binomial(400, 0.5): 200 ± 10; a second decision on the sampled ones would give about 100.
    expect(sampled).toBeGreaterThan(150);
    expect(sampled).toBeLessThan(250);
    await receiver.waitFor((spans) => spans.length >= sampled);
    expect(receiver.spans.filter((span) => span.name === 'GET /x')).toHaveLength(sampled);
    expect(new Set(receiver.spans.map((span) => span.traceId)).size).toBe(sampled);
  });

  it("follows a caller's traceparent whatever the ratio of new traces: sampled is recorded, unsampled not", async () => {
    const { app, recorded } = await tracedApp({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    await app.inject({ method: 'GET', url: '/x' });
    await app.inject({ method: 'GET', url: '/x', headers: { traceparent: traceparent('01') } });
    await app.inject({ method: 'GET', url: '/x', headers: { traceparent: traceparent('00') } });
    expect(recorded()).toEqual([false, true, false]);
    await receiver.waitFor((spans) => spans.length >= 1);
    expect(receiver.spans.map((span) => [span.traceId, span.parentSpanId])).toEqual([[traceId, '00f067aa0ba902b7']]);
  });
});
