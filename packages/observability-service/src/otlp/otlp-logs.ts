import type { Clock } from '@playstack/server-kit';
import { emptyIngestResult } from '../ingest/envelope-ingestor.js';
import type { Ingestion } from '../ingest/ingestion-plugin.js';
import type { NewLogRecord } from '../logs/index.js';
import { otlpLogRow, type LogResource, type OtlpLogRecord, type OtlpScope } from './otlp-log-rows.js';
import { otlpType } from './otlp-protos.js';
import { checkResource } from './otlp-resource-check.js';
import { refusalMessage, type OtlpExportOutcome, type OtlpSignal } from './otlp-signal.js';
import { mapOtlpResource, type OtlpResource } from './otlp-span-mapper.js';
import { attributeMap } from './otlp-values.js';

/** Where OTLP/HTTP logs are posted. */
export const logsHttpPath = '/v1/logs';

/** `ExportLogsServiceRequest` as decoded. */
interface LogsRequest {
  resourceLogs?: Array<{ resource?: OtlpResource | null; scopeLogs?: Array<{ scope?: OtlpScope | null; logRecords?: OtlpLogRecord[] }> }>;
}

/** Logs: `POST /v1/logs` and `LogsService/Export`. Log records are stored as received. */
export function logSignal(ingestion: Ingestion, clock: Clock): OtlpSignal {
  return {
    httpPath: logsHttpPath,
    grpcPath: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
    requestType: otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
    responseType: otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse'),
    rejectedField: 'rejectedLogRecords',
    ingest: (request) => ingestLogs(ingestion, clock, request as LogsRequest),
  };
}

/**
 * Maps every log record (numbered in request order) straight to a storage row with the rules
 * protocol v1 validates log records by (otlp-log-rows.ts), and stores the accepted ones through
 * the same writer. Not async: nothing here holds the request or its records while the commit is
 * awaited, so they can be collected meanwhile (a request's records would otherwise outlive
 * several young-generation collections, each copying them).
 */
function ingestLogs(ingestion: Ingestion, clock: Clock, request: LogsRequest): Promise<OtlpExportOutcome> {
  const { ingestor, validator } = ingestion;
  const resourceLogs = request.resourceLogs ?? [];
  let recordCount = 0;
  for (const entry of resourceLogs) for (const scope of entry.scopeLogs ?? []) recordCount += scope.logRecords?.length ?? 0;
  ingestor.checkLogCount(recordCount);

  const now = clock.now();
  const window = ingestor.acceptanceWindow();
  const result = emptyIngestResult();
  const rows: NewLogRecord[] = [];
  let index = 0;
  for (const entry of resourceLogs) {
    const { resource, otherAttributes } = mapOtlpResource(entry.resource);
    const shell = checkResource(validator, resource, now);
    result.truncated.strings += shell.truncated;
    const owner: LogResource = { resource: shell.resource, resourceAttributes: otherAttributes, tenant: attributeMap(entry.resource?.attributes).get('tenant.id') };
    for (const scope of entry.scopeLogs ?? []) {
      for (const record of scope.logRecords ?? []) {
        const mapped = otlpLogRow(record, scope.scope, owner, window, now);
        if (mapped.ok) {
          rows.push(mapped.row);
          result.truncated.strings += mapped.truncated;
        } else {
          result.errors.push({ member: 'logs', index, message: mapped.message });
        }
        index += 1;
      }
    }
  }
  return ingestor.storeLogRows(rows, result).then((stored) => ({ rejected: stored.rejected.logs, errorMessage: refusalMessage('log record', stored.errors) }));
}
