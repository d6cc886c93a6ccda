import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { SeverityNumber, type AnyValueMap } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { otlpProtocol, stoppedWithin, truthy } from './tracing.js';

/** The service's log lines as OpenTelemetry log records, exported over OTLP in the background. */
export interface LogExport {
  /** Takes one pino JSON line (as the logger writes it) and emits it as a log record. */
  exportLine(line: string): void;
  /** Exports what is buffered (within two seconds) and stops. */
  shutdown(): Promise<void>;
}

/**
 * Whether the standard variables ask for logs to be exported: an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`), and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_LOGS_EXPORTER=none` switches it off.
 */
export function logExportRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (truthy(env.OTEL_SDK_DISABLED)) return false;
  if (env.OTEL_LOGS_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim());
}

/** The OTLP log exporter `OTEL_EXPORTER_OTLP_(LOGS_)PROTOCOL` names (http/protobuf by default). */
async function exporterFor(env: Readonly<Record<string, string | undefined>>): Promise<LogRecordExporter> {
  const protocol = otlpProtocol(env, 'LOGS');
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-logs-otlp-http')).OTLPLogExporter();
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-logs-otlp-grpc')).OTLPLogExporter();
  return new (await import('@opentelemetry/exporter-logs-otlp-proto')).OTLPLogExporter();
}

/** pino's levels as OpenTelemetry severities. */
const severities: Record<number, { number: SeverityNumber; text: string }> = {
  10: { number: SeverityNumber.TRACE, text: 'TRACE' },
  20: { number: SeverityNumber.DEBUG, text: 'DEBUG' },
  30: { number: SeverityNumber.INFO, text: 'INFO' },
  40: { number: SeverityNumber.WARN, text: 'WARN' },
  50: { number: SeverityNumber.ERROR, text: 'ERROR' },
  60: { number: SeverityNumber.FATAL, text: 'FATAL' },
};
/** Fields of a pino line that are the record's own (time, severity, body, trace) or the resource's. */
const recordFields = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'trace_id', 'span_id']);
const hex = (length: number) => new RegExp(`^[0-9a-f]{${length}}$`);
const traceIdPattern = hex(32);
const spanIdPattern = hex(16);

/**
 * Starts exporting log records when the `OTEL_*` variables ask for it (`logExportRequested`),
 * with the exporter, endpoint, headers and timeout the SDK reads from them and batching by
 * `OTEL_BLRP_*`; otherwise answers undefined. Each line's `trace_id` and `span_id` (set while
 * tracing is on) tie its record to the trace.
 */
export async function startLogExport(resource: Resource, env: Readonly<Record<string, string | undefined>> = process.env): Promise<LogExport | undefined> {
  if (!logExportRequested(env)) return undefined;
  const provider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: await exporterFor(env) })] });
  const logger = provider.getLogger(String(resource.attributes['service.name'] ?? 'service'));
  let stopped = false;
  return {
    exportLine(line) {
      if (stopped) return;
      let fields: Record<string, unknown>;
      try {
        fields = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const severity = severities[fields.level as number];
      const attributes: AnyValueMap = {};
      for (const [key, value] of Object.entries(fields)) if (!recordFields.has(key) && value !== undefined) attributes[key] = value as AnyValueMap[string];
      const { trace_id: traceId, span_id: spanId } = fields;
      const inTrace = typeof traceId === 'string' && typeof spanId === 'string' && traceIdPattern.test(traceId) && spanIdPattern.test(spanId);
      logger.emit({
        ...(typeof fields.time === 'number' ? { timestamp: fields.time } : {}),
        ...(severity ? { severityNumber: severity.number, severityText: severity.text } : {}),
        body: typeof fields.msg === 'string' ? fields.msg : '',
        attributes,
        ...(inTrace ? { context: trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED }) } : {}),
      });
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      await stoppedWithin(provider.shutdown());
    },
  };
}
