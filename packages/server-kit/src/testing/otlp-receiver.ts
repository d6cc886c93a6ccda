import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A received span, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, unknown>;
}

/** A received log record. */
export interface ReceivedLog {
  severityNumber: number;
  severityText: string | undefined;
  body: unknown;
  traceId: string | undefined;
  spanId: string | undefined;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface JsonValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
type JsonAttributes = Array<{ key: string; value: JsonValue }> | undefined;

function flatten(attributes: JsonAttributes): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    flat[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue;
  }
  return flat;
}

/**
 * A small OTLP/HTTP receiver for tests, taking `http/json` trace and log exports (`POST
 * /v1/traces`, `/v1/logs`) and keeping their spans and log records. `hang()` makes it accept connections and never answer, like a collector
 * that is stuck.
 */
export class OtlpJsonReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly logs: ReceivedLog[] = [];
  #hanging = false;
  readonly #sockets = new Set<Socket>();
  readonly #server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (this.#hanging) return;
      if (request.url === '/v1/traces') this.#take(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (request.url === '/v1/logs') this.#takeLogs(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  constructor() {
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Listens on 127.0.0.1 (any free port unless given); answers the endpoint URL. */
  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  hang(): void {
    this.#hanging = true;
  }

  /** Waits until `predicate` holds for the spans received (or throws after `timeoutMs`). */
  async waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.spans)) {
      if (Date.now() > deadline) throw new Error(`the spans expected did not arrive within ${timeoutMs} ms (${this.spans.length} received)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #takeLogs(body: { resourceLogs?: Array<{ resource?: { attributes?: JsonAttributes }; scopeLogs?: Array<{ logRecords?: Array<Record<string, unknown>> }> }> }): void {
    for (const resourceLogs of body.resourceLogs ?? []) {
      const resource = flatten(resourceLogs.resource?.attributes);
      for (const scope of resourceLogs.scopeLogs ?? []) {
        for (const record of scope.logRecords ?? []) {
          const body = record.body as JsonValue | undefined;
          this.logs.push({
            severityNumber: (record.severityNumber as number | undefined) ?? 0,
            severityText: record.severityText as string | undefined,
            body: body?.stringValue ?? body,
            traceId: (record.traceId as string | undefined) || undefined,
            spanId: (record.spanId as string | undefined) || undefined,
            attributes: flatten(record.attributes as JsonAttributes),
            resource,
          });
        }
      }
    }
  }

  #take(body: { resourceSpans?: Array<{ resource?: { attributes?: JsonAttributes }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> }): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId as string,
            spanId: span.spanId as string,
            parentSpanId: (span.parentSpanId as string | undefined) || undefined,
            name: span.name as string,
            kind: span.kind as number,
            attributes: flatten(span.attributes as JsonAttributes),
            events: ((span.events as Array<{ name: string; attributes?: JsonAttributes }> | undefined) ?? []).map((event) => ({ name: event.name, attributes: flatten(event.attributes) })),
            statusCode: (span.status as { code?: number } | undefined)?.code ?? 0,
            resource,
          });
        }
      }
    }
  }
}
