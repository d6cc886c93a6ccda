import { expect } from 'vitest';
import { seededRandom } from '@playstack/server-kit/testing';
import type { App } from '@playstack/server-kit';
import { envelope, minimalOccurrence } from './envelopes.js';

export const alertTestKey = 'alerts-test-ingestion-key-0123456789';
/** The environment that turns the background timer off: tests drive `app.alerts.evaluator.runOnce()` with their clock. */
export const alertTestEnv = { SERVICE_API_KEY: alertTestKey, ALERT_EVALUATION_INTERVAL_SECONDS: '3600', ALERT_EVALUATION_DELAY_SECONDS: '0' };

export const failureStack = 'PaymentDeclined: card declined\n    at charge (/srv/app/src/billing/charge.ts:41:7)\n    at handle (/srv/app/src/http/router.ts:12:3)';

/**
 * A generated minute of traffic: `requests` server spans of `service` spread over the minute
 * starting at `minuteMs`, `errorShare` of them failing with the same error, durations drawn
 * around `durationMs` (seeded by the minute). Returns what was sent, slowest first.
 */
export async function ingestMinute(
  app: App,
  minuteMs: number,
  traffic: { service?: string; environment?: string; requests: number; errorShare?: number; durationMs?: number; tenantId?: string },
): Promise<Array<{ traceId: string; durationMs: number; status: string }>> {
  const random = seededRandom(minuteMs / 60_000);
  const failing = Math.round(traffic.requests * (traffic.errorShare ?? 0));
  const occurrences = Array.from({ length: traffic.requests }, (_, i) => {
    const durationMs = Math.round((traffic.durationMs ?? 20) * (0.5 + random()) * 1000) / 1000;
    const error = i < failing;
    return minimalOccurrence(new Date(minuteMs + Math.floor((i * 59_000) / traffic.requests)).toISOString(), {
      operation: 'POST /checkout',
      kind: 'server',
      durationMs,
      status: error ? 'error' : 'ok',
      ...(error ? { error: { type: 'PaymentDeclined', message: 'card declined', stack: failureStack } } : {}),
      ...(traffic.tenantId ? { tenantId: traffic.tenantId } : {}),
    });
  });
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/ingest',
    headers: { authorization: `Bearer ${alertTestKey}` },
    payload: envelope(occurrences, { service: traffic.service ?? 'checkout', environment: traffic.environment ?? 'production' }),
  });
  expect(response.statusCode, response.body).toBe(202);
  return occurrences
    .map((occurrence) => ({ traceId: String(occurrence.traceId), durationMs: Number(occurrence.durationMs), status: String(occurrence.status) }))
    .sort((a, b) => b.durationMs - a.durationMs);
}
