import { errorResponses, type App } from '@playstack/server-kit';
import { LogRecord, LogsQuery, LogsResponse, LogTrendQuery, LogTrendResponse, TraceLogsParams, TraceLogsResponse, logsLimitDefault } from './log-schemas.js';
import { logsView, logTrendView, traceLogsView } from './logs-view.js';

const tags = ['logs'];
const security = [{ session: [] }];
const selectionNote =
  'Honours from, to (by the record’s time, `from` inclusive, `to` exclusive, default the last 24 hours), service, environment, severity (minimum), traceId, q (text search), attr.<key>=<value> (record or resource attribute; up to 5)';

/** The logs read endpoints: search, counts over time, and a trace's records. */
export async function logRoutes(app: App): Promise<void> {
  app.addHook('onRequest', app.requireSession);
  app.addSchema(LogRecord);

  app.get(
    '/api/v1/logs',
    {
      schema: {
        tags,
        security,
        summary: 'Log records, newest first',
        description: `${selectionNote}, limit (default ${logsLimitDefault}, capped at 200), cursor (keyset paging: pages stay stable while records arrive). 400 invalid-cursor for a cursor this service did not hand out.`,
        querystring: LogsQuery,
        response: { 200: LogsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => logsView(app.logStore, app.clock.now(), { ...request.query, limit: request.query.limit ?? logsLimitDefault }),
  );

  app.get(
    '/api/v1/logs/trend',
    {
      schema: {
        tags,
        security,
        summary: 'Log records per time bucket and severity',
        description: `${selectionNote}, interval. Buckets are aligned to the interval (UTC); empty ones are zeros. Without traceId, q and attr filters the counts come from per-minute and per-hour counts (a minute counts when any part of it lies in the range); with them, from the matching records.`,
        querystring: LogTrendQuery,
        response: { 200: LogTrendResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => logTrendView(app.logStore, app.clock.now(), request.query),
  );

  app.get(
    '/api/v1/traces/:traceId/logs',
    {
      schema: {
        tags,
        security,
        summary: 'The log records of a trace, earliest first',
        description: 'Takes no range or filters: every stored record emitted in the trace (up to 1,000, the earliest). An empty list when there are none.',
        params: TraceLogsParams,
        response: { 200: TraceLogsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => traceLogsView(app.logStore, request.params.traceId),
  );
}
