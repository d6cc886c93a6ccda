import { randomBytes } from 'node:crypto';

/** What the sample holds, so tests can assert exact figures. */
export const sample = {
  traces: 10,
  errorTraces: 3,
  spansPerTrace: 6,
  /** Two failing spans per failing trace: payments' charge and checkout's order. */
  errorOccurrences: 6,
  tenants: ['acme', 'globex'],
  services: ['web', 'checkout', 'payments'],
  statement: 'SELECT id, total FROM orders WHERE id = 42',
};

interface Occurrence {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  operation: string;
  kind: 'server' | 'client' | 'internal';
  startedAt: string;
  durationMs: number;
  status: 'ok' | 'error';
  tenantId: string;
  http?: { method: string; route: string; statusCode: number };
  db?: { system: string; statement: string; operation: string };
  peer?: { service: string; address?: string };
  error?: { type: string; message: string; stack: string };
  attributes?: Record<string, string | number | boolean>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Protocol v1 envelopes, one per service, of `sample.traces` traces across web -> checkout ->
 * (postgresql, payments), spread over the `spreadMs` before `nowMs`; some traces fail in payments.
 */
export function sampleEnvelopes(nowMs: number, spreadMs = 50 * 60_000): Array<{ service: string; body: unknown }> {
  const byService = new Map<string, Occurrence[]>(sample.services.map((service) => [service, []]));
  for (let i = 0; i < sample.traces; i += 1) {
    const failing = i < sample.errorTraces;
    const tenantId = sample.tenants[i % sample.tenants.length]!;
    const traceId = hex(16);
    const start = nowMs - spreadMs + Math.floor((spreadMs * i) / sample.traces);
    const at = (offsetMs: number) => new Date(start + offsetMs).toISOString();
    const ids = { web: hex(8), webCall: hex(8), checkout: hex(8), query: hex(8), payCall: hex(8), payments: hex(8) };
    const stack = 'CardDeclined: card declined\n    at charge (payments/src/charge.ts:42:11)\n    at handle (payments/src/server.ts:17:5)';
    byService.get('web')!.push(
      { traceId, spanId: ids.web, operation: 'GET /checkout', kind: 'server', startedAt: at(0), durationMs: 120, status: 'ok', tenantId, http: { method: 'GET', route: '/checkout', statusCode: failing ? 502 : 200 }, attributes: { 'user.plan': 'pro', retried: false } },
      { traceId, spanId: ids.webCall, parentSpanId: ids.web, operation: 'POST checkout/orders', kind: 'client', startedAt: at(5), durationMs: 100, status: 'ok', tenantId, peer: { service: 'checkout' } },
    );
    byService.get('checkout')!.push(
      {
        traceId,
        spanId: ids.checkout,
        parentSpanId: ids.webCall,
        operation: 'POST /orders',
        kind: 'server',
        startedAt: at(10),
        durationMs: 90,
        status: failing ? 'error' : 'ok',
        tenantId,
        http: { method: 'POST', route: '/orders', statusCode: failing ? 502 : 201 },
        ...(failing ? { error: { type: 'UpstreamError', message: 'payment failed', stack: 'UpstreamError: payment failed\n    at placeOrder (checkout/src/orders.ts:88:9)' } } : {}),
        attributes: { 'order.items': 3 },
      },
      { traceId, spanId: ids.query, parentSpanId: ids.checkout, operation: 'SELECT orders', kind: 'client', startedAt: at(15), durationMs: 12, status: 'ok', tenantId, db: { system: 'postgresql', statement: sample.statement, operation: 'SELECT' } },
      { traceId, spanId: ids.payCall, parentSpanId: ids.checkout, operation: 'POST payments/charge', kind: 'client', startedAt: at(30), durationMs: 60, status: 'ok', tenantId, peer: { service: 'payments' } },
    );
    byService.get('payments')!.push({
      traceId,
      spanId: ids.payments,
      parentSpanId: ids.payCall,
      operation: 'POST /charge',
      kind: 'server',
      startedAt: at(35),
      durationMs: 50,
      status: failing ? 'error' : 'ok',
      tenantId,
      http: { method: 'POST', route: '/charge', statusCode: failing ? 402 : 200 },
      ...(failing ? { error: { type: 'CardDeclined', message: 'card declined', stack } } : {}),
      attributes: { 'card.brand': 'visa', amount: 4200 },
    });
  }
  return sample.services.map((service) => ({
    service,
    body: {
      protocol: 1,
      sentAt: new Date(nowMs).toISOString(),
      resource: { service, environment: 'production', version: '1.4.2', instance: `${service}-1` },
      occurrences: byService.get(service),
    },
  }));
}
