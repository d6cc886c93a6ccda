import { randomBytes } from 'node:crypto';

/** A fresh W3C trace id / span id. */
export const newTraceId = () => randomBytes(16).toString('hex');
export const newSpanId = () => randomBytes(8).toString('hex');

/** A valid occurrence with every optional member, starting at `startedAt`; `overrides` replace members. */
export function fullOccurrence(startedAt: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'occ-1',
    traceId: newTraceId(),
    spanId: newSpanId(),
    parentSpanId: newSpanId(),
    operation: 'GET /players/:id',
    kind: 'server',
    startedAt,
    durationMs: 12.5,
    status: 'error',
    tenantId: 'acme',
    http: { method: 'GET', route: '/players/:id', statusCode: 500 },
    db: { system: 'postgresql', statement: "SELECT * FROM players WHERE id = 42 AND name = 'x'", operation: 'SELECT' },
    peer: { service: 'player-db', address: 'db.internal:5432' },
    error: { type: 'TimeoutError', message: 'query timed out', stack: 'TimeoutError: query timed out\n    at query (db.ts:1:1)' },
    attributes: { 'game.mode': 'ranked', 'retry.count': 2, cached: false },
    ...overrides,
  };
}

/** A minimal valid occurrence. */
export function minimalOccurrence(startedAt: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { traceId: newTraceId(), spanId: newSpanId(), operation: 'tick', kind: 'internal', startedAt, durationMs: 1, status: 'ok', ...overrides };
}

/** An envelope around the occurrences. */
export function envelope(occurrences: unknown[], resource: Record<string, unknown> = { service: 'game-api', environment: 'production' }): Record<string, unknown> {
  return { protocol: 1, sentAt: new Date().toISOString(), resource, occurrences };
}
