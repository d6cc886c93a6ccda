import { Readable } from 'node:stream';
import { errorResponses, type App } from '@playstack/server-kit';
import { telemetryReadOf } from '../query/read-query.js';
import { csvChunks } from './csv-chunks.js';
import { jsonArrayChunks } from './json-array-chunks.js';
import {
  UsageExportJson,
  UsageExportQuery,
  UsageQuery,
  UsageResponse,
  UsageTrendQuery,
  UsageTrendResponse,
  usageExportIntervalDefault,
  type UsageExportRow,
} from './usage-schemas.js';

const tags = ['usage'];
const security = [{ session: [] }];
const rangeNote =
  'Range: `from` inclusive, `to` exclusive, default the last 24 hours; figures come from per-minute rollups (a minute counts when any part of it lies in the range). ';

/** The export's columns, in order; the CSV header row uses these names. */
const exportColumns: ReadonlyArray<{ header: keyof UsageExportRow; value: (row: UsageExportRow) => string | number }> = (
  ['periodStart', 'tenantId', 'service', 'environment', 'occurrences', 'errors', 'totalDurationMs', 'logs'] as const
).map((header) => ({ header, value: (row: UsageExportRow) => row[header] }));

function fileStamp(iso: string): string {
  return iso.replaceAll(':', '').replace(/\.\d{3}Z$/, 'Z');
}

/** Usage per tenant: totals, a trend, and an export (CSV or JSON, streamed). */
export async function usageRoutes(app: App): Promise<void> {
  app.addHook('onRequest', app.requireSession);
  const readQuery = (query: UsageQuery) => telemetryReadOf(app.clock.now(), query);

  app.get(
    '/api/v1/usage',
    {
      schema: {
        tags,
        security,
        summary: 'Usage per tenant',
        description: `${rangeNote}Honours from, to, service, environment, tenantId.`,
        querystring: UsageQuery,
        response: { 200: UsageResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => app.telemetry.usage(readQuery(request.query), request.query.tenantId),
  );

  app.get(
    '/api/v1/usage/trend',
    {
      schema: {
        tags,
        security,
        summary: 'Usage per time bucket',
        description: `${rangeNote}Honours from, to, service, environment, tenantId, interval. Buckets without data are zeros.`,
        querystring: UsageTrendQuery,
        response: { 200: UsageTrendResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => app.telemetry.usageTrend(readQuery(request.query), request.query.tenantId, request.query.interval),
  );

  app.get(
    '/api/v1/usage/export',
    {
      schema: {
        tags,
        security,
        summary: 'Usage export, one row per period, tenant, service and environment',
        description: `${rangeNote}Honours from, to, service, environment, tenantId, interval, format. CSV (RFC 4180, header row) unless format=json; sent as an attachment and streamed.`,
        querystring: UsageExportQuery,
        produces: ['text/csv', 'application/json'],
        response: {
          200: {
            description: 'The rows, as CSV (the default) or JSON.',
            content: {
              'text/csv': { schema: { type: 'string', description: 'Header row, then one CRLF-terminated record per row.' } },
              'application/json': { schema: UsageExportJson },
            },
          },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const query = readQuery(request.query);
      const format = request.query.format ?? 'csv';
      const batches = app.telemetry.usageExport(query, request.query.tenantId, request.query.interval ?? usageExportIntervalDefault);
      const name = `usage-${fileStamp(new Date(query.range.fromMs).toISOString())}-${fileStamp(new Date(query.range.toMs).toISOString())}.${format}`;
      const chunks = format === 'json' ? jsonArrayChunks('rows', batches) : csvChunks(exportColumns, batches);
      return reply
        .type(format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks));
    },
  );
}
