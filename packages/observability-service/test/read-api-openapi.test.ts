import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// The committed copy is what the drift test holds equal to the served document.
const document = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { tags: string[]; security: unknown[]; parameters?: Array<{ name: string; in: string }>; description?: string; responses: Record<string, unknown> }>>;
};

const range = ['from', 'to', 'service', 'environment'];
const honoured: Record<string, string[]> = {
  '/api/v1/services': range,
  '/api/v1/summary': range,
  '/api/v1/trend': [...range, 'interval'],
  '/api/v1/operations': [...range, 'limit', 'entry'],
  '/api/v1/occurrences': [...range, 'operation', 'status', 'errorType', 'httpStatusClass', 'minDurationMs', 'maxDurationMs', 'limit', 'offset'],
  '/api/v1/occurrences/durations': [...range, 'operation', 'status', 'errorType', 'httpStatusClass'],
  '/api/v1/occurrences/{id}': ['id'],
  '/api/v1/lookup/{id}': ['id'],
  '/api/v1/traces/{traceId}': ['traceId'],
  '/api/v1/database': [...range, 'limit'],
  '/api/v1/dependencies': range,
  '/api/v1/usage': [...range, 'tenantId'],
  '/api/v1/usage/trend': [...range, 'tenantId', 'interval'],
  '/api/v1/usage/export': [...range, 'tenantId', 'interval', 'format'],
  '/api/v1/health': [],
};

it.each(Object.entries(honoured))('documents %s with the parameters it honours, its session requirement and its errors', (path, parameters) => {
  const operation = document.paths[path]?.get;
  expect(operation, `${path} is missing from openapi.json`).toBeDefined();
  expect((operation!.parameters ?? []).map((parameter) => parameter.name)).toEqual(parameters);
  expect(operation!.security).toEqual([{ session: [] }]);
  expect(Object.keys(operation!.responses)).toContain('401');
  if (parameters.includes('from')) expect(Object.keys(operation!.responses)).toContain('400');
  for (const name of parameters.filter((parameter) => parameter !== 'id' && parameter !== 'traceId')) expect(operation!.description ?? '').toContain(name);
});

it('documents the export as CSV or JSON', () => {
  const ok = document.paths['/api/v1/usage/export']!.get!.responses['200'] as { content: Record<string, unknown> };
  expect(Object.keys(ok.content).sort()).toEqual(['application/json', 'text/csv']);
});
