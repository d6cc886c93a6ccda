import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { activeTracing, recordFailure, recordingSpanActive } from './tracing.js';

/**
 * `fetch`, as a CLIENT span (`POST`, with `url.full` minus its query, `server.address`,
 * `http.response.status_code`) carrying W3C `traceparent` to the callee, when tracing is on and a
 * span is active (a request's); plain `fetch` otherwise. The span ends when the answer's
 * headers arrive.
 */
export async function tracedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const tracing = activeTracing();
  if (!tracing || !recordingSpanActive()) return fetch(url, init);
  const target = new URL(url);
  const method = (init.method ?? 'GET').toUpperCase();
  const span = tracing.tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'url.full': `${target.origin}${target.pathname}`,
      'server.address': target.hostname,
      'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
    },
  });
  const headers = new Headers(init.headers);
  propagation.inject(trace.setSpan(context.active(), span), headers, { set: (carrier, key, value) => carrier.set(key, value) });
  try {
    const response = await fetch(url, { ...init, headers });
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) {
      span.setAttribute('error.type', String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
