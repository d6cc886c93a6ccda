import { context, createContextKey, propagation, trace, SpanKind, SpanStatusCode, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { asyncContextFrameInUse, PromiseContextManager } from './promise-context.js';

/** What tracing needs to know about the service it runs in. */
export interface TracingIdentity {
  /** `service.name` unless `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) says otherwise. */
  serviceName: string;
  serviceVersion: string;
}

/** The running OpenTelemetry SDK of a service: its tracer, and how to stop it. */
export interface Tracing {
  readonly tracer: Tracer;
  /**
   * Marks sampled work in flight (a sampled request) until the returned release is called. The
   * context manager is engaged only while some is: without the async context frame (Node.js 20,
   * 22 without the flag) an engaged one runs hooks on every promise of every request, unsampled
   * too, which was most of what 10% sampling cost.
   */
  holdContext(): () => void;
  /**
   * Whether the active context follows every kind of callback (timers, emitters, an
   * `AsyncResource`'s scope: `AsyncLocalStorage`, with the async context frame), or promises only
   * (`PromiseContextManager`, where `AsyncLocalStorage` would run on async hooks): then whoever
   * resumes a request's work from such a callback re-enters its context.
   */
  readonly contextFollowsCallbacks: boolean;
  /**
   * Whether a new trace (a request without `traceparent`) is sampled: a draw at the root ratio
   * `OTEL_TRACES_SAMPLER(_ARG)` configure, made before anything is created, so that an unsampled
   * request costs this draw only (no ids, no span, no sampler). Its span is started in
   * `sampledRoot(...)`, which the sampler records without deciding again.
   */
  sampleNewTrace(): boolean;
  /** Exports what is buffered (within `shutdownTimeoutMs`) and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/** The longest a service's stop waits for its last spans (or log records) to be exported. */
const shutdownTimeoutMs = 2_000;

/** Waits for an SDK's `shutdown` (its last export), at most `shutdownTimeoutMs`; a failure is no matter. */
export async function stoppedWithin(shutdown: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, shutdownTimeoutMs);
  });
  await Promise.race([shutdown.catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/** The OTLP protocol the variables name for a signal (`OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL`, then the common one; http/protobuf by default). */
export function otlpProtocol(env: Readonly<Record<string, string | undefined>>, signal: 'TRACES' | 'LOGS'): 'http/protobuf' | 'http/json' | 'grpc' {
  const protocol = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json' && protocol !== 'grpc') throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not one of http/protobuf, http/json, grpc`);
  return protocol;
}

let active: Tracing | undefined;

/** Marks the context a new trace's root span starts in once `sampleNewTrace` has said sampled. */
const decidedSampled = createContextKey('playstack.sampled-new-trace');

/** The context to start a new trace's root span in after `Tracing.sampleNewTrace` said sampled. */
export function sampledRoot(parent: Context): Context {
  return parent.setValue(decidedSampled, true);
}

/** The sampler `OTEL_TRACES_SAMPLER(_ARG)` name, as the SDK reads them, and its ratio for new traces. */
export function samplerFromEnv(env: Readonly<Record<string, string | undefined>>): { sampler: Sampler; rootRatio: number } {
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const parsed = arg ? Number(arg) : Number.NaN;
  // The SDK's reading: a blank, unreadable or out-of-range ratio is 1.
  const ratio = Number.isNaN(parsed) || parsed < 0 || parsed > 1 ? 1 : parsed;
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case 'always_on':
      return { sampler: new AlwaysOnSampler(), rootRatio: 1 };
    case 'always_off':
      return { sampler: new AlwaysOffSampler(), rootRatio: 0 };
    case 'parentbased_always_off':
      return { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), rootRatio: 0 };
    case 'traceidratio':
      return { sampler: new TraceIdRatioBasedSampler(ratio), rootRatio: ratio };
    case 'parentbased_traceidratio':
      return { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }), rootRatio: ratio };
    default:
      // parentbased_always_on, the default (unset or unknown).
      return { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), rootRatio: 1 };
  }
}

/** `sampler`, except for a root span started in `sampledRoot(...)`: already decided, recorded. */
function decidedFirst(sampler: Sampler): Sampler {
  return {
    shouldSample(ctx, traceId, spanName, spanKind, attributes, links) {
      if (ctx.getValue(decidedSampled) === true) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
      return sampler.shouldSample(ctx, traceId, spanName, spanKind, attributes, links);
    },
    toString: () => sampler.toString(),
  };
}

/** The tracing started in this process, if any: features use it to skip span work entirely when off. */
export function activeTracing(): Tracing | undefined {
  return active;
}

export const truthy = (value: string | undefined) => value !== undefined && ['true', '1'].includes(value.trim().toLowerCase());

/**
 * Whether the standard variables ask for traces to be exported: an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` switches it off.
 */
export function tracingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (truthy(env.OTEL_SDK_DISABLED)) return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * The service's resource: `service.name` and `service.version`, then what `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` say (they win). Shared by its spans and its log records.
 */
export function serviceResource(identity: TracingIdentity): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': identity.serviceName, 'service.version': identity.serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/** The OTLP exporter `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` names (http/protobuf by default). */
async function exporterFor(env: Readonly<Record<string, string | undefined>>): Promise<SpanExporter> {
  const protocol = otlpProtocol(env, 'TRACES');
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/**
 * Starts the OpenTelemetry SDK when the `OTEL_*` variables ask for it (see `tracingRequested`);
 * otherwise returns undefined and nothing is loaded, registered or exported. The exporter,
 * endpoint, headers, timeout, sampler (`OTEL_TRACES_SAMPLER`, `_ARG`; parent-based always-on by
 * default) and batching (`OTEL_BSP_*`) are the SDK's own readings of the standard variables.
 * Spans are exported in the background: an unreachable collector costs dropped spans, never
 * a slower request.
 */
export async function startTracing(identity: TracingIdentity, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  if (active) throw new Error('tracing is already started in this process');
  const resource = serviceResource(identity);
  const { sampler, rootRatio } = samplerFromEnv(env);
  const provider = new BasicTracerProvider({ resource, sampler: decidedFirst(sampler), spanProcessors: [new BatchSpanProcessor(await exporterFor(env))] });
  // Where AsyncLocalStorage would run on async hooks (their bookkeeping on every promise, tick,
  // timer and socket callback), promise hooks alone carry the context (see PromiseContextManager).
  const contextFollowsCallbacks = asyncContextFrameInUse();
  const contextManager = contextFollowsCallbacks ? new AsyncLocalStorageContextManager().enable() : new PromiseContextManager();
  context.setGlobalContextManager(contextManager);
  let held = 0;
  const releaseContext = () => {
    held -= 1;
    if (held > 0) return;
    // Disengaged outside any promise job (hooks stopped inside one would miss its "after"); a
    // later context.with engages it again. A continuation of ended work then sees no context,
    // so it starts no spans, as work outside any request.
    setImmediate(() => {
      if (held === 0) contextManager.disable();
    });
  };
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracing: Tracing = {
    tracer: provider.getTracer(identity.serviceName, identity.serviceVersion),
    contextFollowsCallbacks,
    holdContext() {
      held += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseContext();
      };
    },
    sampleNewTrace: rootRatio >= 1 ? () => true : rootRatio <= 0 ? () => false : () => Math.random() < rootRatio,
    async shutdown() {
      if (active !== tracing) return;
      active = undefined;
      await stoppedWithin(provider.shutdown());
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  active = tracing;
  return tracing;
}

/**
 * Whether the active span records (a sampled request's): work under an unsampled one, or outside
 * any request, starts no spans, so it costs no more than with tracing off.
 */
export function recordingSpanActive(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}

/** Marks a span failed by `error`: an `exception` event, `error.type`, status ERROR. */
export function recordFailure(span: Span, error: unknown): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  span.recordException(failure);
  span.setAttribute('error.type', failure.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
}

/**
 * Runs `work` in an internal span (or a span of `kind`) when tracing is on and a recording span
 * is active (a sampled request's); otherwise it just runs `work`. A throw or rejection is recorded on the span.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => T, kind: SpanKind = SpanKind.INTERNAL): T {
  const tracing = active;
  if (!tracing || !recordingSpanActive()) return work();
  return tracing.tracer.startActiveSpan(name, { kind, attributes }, (span) => {
    let result: T;
    try {
      result = work();
    } catch (error) {
      recordFailure(span, error);
      span.end();
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          recordFailure(span, error);
          span.end();
          throw error;
        },
      ) as T;
    }
    span.end();
    return result;
  });
}

/** A trace context captured for later (`captureContext`). */
export type TraceContext = Context;

/**
 * The active context while tracing is on (undefined when off), for work that another caller runs
 * later on this one's behalf (a write queued for a shared transaction): `runInContext` runs it
 * there, so its spans are this caller's.
 */
export function captureContext(): Context | undefined {
  return active ? context.active() : undefined;
}

/** Runs `work` in a context `captureContext` returned (as it is when that was undefined). */
export function runInContext<T>(captured: Context | undefined, work: () => T): T {
  return captured === undefined ? work() : context.with(captured, work);
}

/** `trace_id` and `span_id` of the active span, for a log line (empty when none is active). */
export function activeSpanIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
