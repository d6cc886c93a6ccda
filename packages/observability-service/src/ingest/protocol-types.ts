/** Protocol v1 as TypeScript types; docs/protocol-v1.schema.json is the authority. */

export type OccurrenceKind = 'server' | 'client' | 'internal' | 'producer' | 'consumer';
export type OccurrenceStatus = 'ok' | 'error';
export type AttributeValue = string | number | boolean;

/** What sent the occurrences. */
export interface ProtocolResource {
  service: string;
  environment: string;
  version?: string;
  instance?: string;
}

/** One executed operation (an OpenTelemetry span). */
export interface ProtocolOccurrence {
  id?: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  operation: string;
  kind: OccurrenceKind;
  startedAt: string;
  durationMs: number;
  status: OccurrenceStatus;
  tenantId?: string;
  http?: { method: string; route?: string; statusCode?: number };
  db?: { system: string; statement?: string; operation?: string };
  peer?: { service?: string; address?: string };
  error?: { type?: string; message?: string; stack?: string };
  attributes?: Record<string, AttributeValue>;
}

/** One log record (an OpenTelemetry LogRecord). */
export interface ProtocolLogRecord {
  time: string;
  observedAt?: string;
  severityNumber?: number;
  severityText?: string;
  /** A string, or any JSON value for structured logs. */
  body?: unknown;
  eventName?: string;
  scope?: { name?: string; version?: string };
  traceId?: string;
  spanId?: string;
  tenantId?: string;
  attributes?: Record<string, AttributeValue>;
}

/** A protocol v1 envelope. */
export interface ProtocolEnvelope {
  protocol: 1;
  sentAt: string;
  resource: ProtocolResource;
  occurrences: ProtocolOccurrence[];
  logs?: ProtocolLogRecord[];
}
