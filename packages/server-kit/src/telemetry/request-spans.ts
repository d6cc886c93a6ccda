import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordFailure, sampledRoot, type Tracing } from './tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, while tracing is on and the request is traced. */
    otelSpan?: Span | undefined;
  }
}

export interface RequestSpanOptions {
  /**
   * Requests that must create no telemetry at all (the observability service's own ingest):
   * no server span, and every span their work would start is suppressed.
   */
  untraced?: ((request: FastifyRequest) => boolean) | undefined;
}

/**
 * A SERVER span per request, named `METHOD /route/template` with the HTTP semantic conventions'
 * attributes, parented on an incoming W3C `traceparent`. The request's hooks and handler run in
 * its context, so the spans its work starts (SQL, Redis, outgoing calls) are its children: they
 * run from `done` of its first hook, and Fastify runs what follows a body's reading in the async
 * context the reading started in (an AsyncResource), however late the body arrives; the
 * response's events (`onResponse` hooks, the request's log line) run in the context of the write
 * that ended the response. Where the context follows promises only (`PromiseContextManager`), a
 * body's reading and the response's events lose it, so the request's span is made active again
 * in `preValidation` (after the body is read) and `onResponse`. Errors handed to Fastify are `exception` events; a 5xx answer sets the
 * span's status to ERROR.
 *
 * A sampled request changes no object whose code every request runs: no listeners wrapped on its
 * raw request or response (binding an emitter to a context patches its methods on the object),
 * no property added to the request (`otelSpan` is declared on every request), so that Node's and
 * Fastify's code stays as fast for the unsampled requests beside it.
 */
export function traceRequests(app: FastifyInstance, tracing: Tracing, options: RequestSpanOptions = {}): void {
  app.decorateRequest('otelSpan', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    if (options.untraced?.(request)) {
      // Where the context follows promises only, it is the root's once the body is read, where
      // nothing starts spans: entering one here would only engage the promise hooks.
      if (tracing.contextFollowsCallbacks) context.with(suppressTracing(context.active()), done);
      else done();
      return;
    }
    // A new trace is sampled or not before anything is created: an unsampled request costs a
    // draw. A caller's trace (`traceparent`) is the sampler's to follow, on its parent.
    const newTrace = request.headers.traceparent === undefined;
    if (newTrace && !tracing.sampleNewTrace()) {
      done();
      return;
    }
    const parent = newTrace ? context.active() : propagation.extract(context.active(), request.headers);
    const route = request.routeOptions.url;
    // No attributes until the sampler says the span records: a caller's unsampled request pays
    // the decision (and its ids) only.
    const span = tracing.tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER }, newTrace ? sampledRoot(parent) : parent);
    // Not sampled: nothing to record, so nothing more to pay (no context, no listeners); the
    // request's work then starts no spans either (they need a recording parent).
    if (!span.isRecording()) {
      done();
      return;
    }
    const queryAt = request.url.indexOf('?');
    span.setAttributes({
      'http.request.method': request.method,
      ...(route ? { 'http.route': route } : {}),
      // The query string may carry what a log must not (codes, tokens): the path only.
      'url.path': queryAt === -1 ? request.url : request.url.slice(0, queryAt),
      'url.scheme': request.protocol,
      'server.address': request.hostname,
      ...(request.port ? { 'server.port': request.port } : {}),
      'client.address': request.ip,
      'network.protocol.version': request.raw.httpVersion,
      ...(request.headers['user-agent'] ? { 'user_agent.original': request.headers['user-agent'] } : {}),
    });
    request.otelSpan = span;
    const active = trace.setSpan(parent, span);
    const release = tracing.holdContext();
    reply.raw.once('close', () => {
      release();
      const status = reply.raw.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (!reply.raw.writableFinished) span.setAttribute('error.type', 'aborted');
      if (status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', String(status));
      }
      span.end();
    });
    context.with(active, done);
  });
  if (!tracing.contextFollowsCallbacks) {
    // Hooks that take callbacks: an async hook costs every request a promise and a microtask.
    const reenter = (request: FastifyRequest, _reply: unknown, done: () => void) => {
      const span = request.otelSpan;
      if (span) context.with(trace.setSpan(ROOT_CONTEXT, span), done);
      else done();
    };
    app.addHook('preValidation', reenter);
    app.addHook('onResponse', reenter);
  }
  app.addHook('onError', (request, _reply, error, done) => {
    const span = request.otelSpan;
    if (span) {
      // A client's mistake (a 4xx error) is an event on the span; only a server fault fails it.
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 500) recordFailure(span, error);
      else span.recordException(error);
    }
    done();
  });
}
