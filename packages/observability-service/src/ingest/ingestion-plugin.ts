import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram } from 'prom-client';
import { ApiError, errorResponses, type App } from '@playstack/server-kit';
import type { TelemetryWriter } from '../telemetry/index.js';
import { ingestAdmission, installIngestAuth, type IngestAdmission, type IngestionKeyCheck } from './ingest-auth.js';
import { installIngestBodyParser, type IngestBodyLimits } from './ingest-body-parser.js';
import { IngestRateLimiter } from './ingest-rate-limiter.js';
import { EnvelopeIngestor } from './envelope-ingestor.js';
import { EnvelopeValidator } from './envelope-validator.js';
import { envelopeBodySchema, IngestHeaders, IngestResponse } from './ingest-schemas.js';
import './ingest-error-codes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The ingestion pipeline, shared by the protocol v1 and OTLP endpoints. */
    ingestion: Ingestion;
  }
}

/**
 * What every ingest transport (protocol v1, OTLP/HTTP, OTLP/gRPC) shares: one admission check,
 * the same body limits, validation, and the one durable batched writer.
 */
export interface Ingestion {
  ingestor: EnvelopeIngestor;
  validator: EnvelopeValidator;
  writer: TelemetryWriter;
  limits: IngestBodyLimits;
  /** Key check and rate limit; throws `unauthorized` or `rate-limited`. */
  admit: IngestAdmission;
  /** Installs the gzip-aware JSON parser and key authentication on an encapsulated scope. */
  prepareScope(scope: App): void;
  /** Stores, turning a storage failure into a retryable 503. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export interface IngestionPluginOptions {
  keys: IngestionKeyCheck;
  limits: IngestBodyLimits;
  maxOccurrences: number;
  maxLogRecords: number;
  rateLimitPerSecond: number;
}

/** Counters an operator watches: throughput, and how well group commit batches envelopes. */
function ingestMetrics(app: App) {
  const registers = [app.metrics];
  return {
    transactions: new Counter({ name: 'observability_ingest_transactions_total', help: 'Ingest transactions committed', registers }),
    envelopes: new Counter({ name: 'observability_ingest_envelopes_committed_total', help: 'Envelopes (or OTLP requests) whose occurrences were committed', registers }),
    occurrences: new Counter({ name: 'observability_ingest_occurrences_committed_total', help: 'Occurrences committed', registers }),
    logs: new Counter({ name: 'observability_ingest_log_records_committed_total', help: 'Log records committed', registers }),
    commitSeconds: new Histogram({
      name: 'observability_ingest_commit_seconds',
      help: 'Duration of ingest transactions (insert, edges, rollups, commit)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
  };
}

/** Decorates `app.ingestion` and serves `POST /api/v1/ingest`. */
export const ingestionPlugin = fp<IngestionPluginOptions, RawServerDefault, TypeBoxTypeProvider>(
  async (app, options) => {
    const metrics = ingestMetrics(app);
    const writer = app.telemetry;
    writer.onCommit(({ envelopes, rows, logs, durationMs }) => {
      metrics.transactions.inc();
      metrics.envelopes.inc(envelopes);
      metrics.occurrences.inc(rows);
      metrics.logs.inc(logs);
      metrics.commitSeconds.observe(durationMs / 1000);
    });
    const validator = new EnvelopeValidator();
    const ingestor = new EnvelopeIngestor({
      validator,
      writer,
      clock: app.clock,
      maxOccurrences: options.maxOccurrences,
      maxLogRecords: options.maxLogRecords,
      retentionDays: () => app.retention.policy.days,
    });
    const limiter = new IngestRateLimiter({ limitPerSecond: options.rateLimitPerSecond, clock: app.clock, redis: app.redisHealth });
    const admit = ingestAdmission(options.keys, limiter);
    const ingestion: Ingestion = {
      ingestor,
      validator,
      writer,
      limits: options.limits,
      admit,
      prepareScope(scope) {
        installIngestBodyParser(scope, options.limits);
        installIngestAuth(scope, admit);
      },
      async run(work) {
        try {
          return await work();
        } catch (error) {
          if (error instanceof ApiError) throw error;
          app.log.error({ err: error }, 'could not store an envelope');
          throw new ApiError('storage-unavailable', 'The telemetry could not be stored; nothing was kept. Retry later.', {
            headers: { 'retry-after': '1' },
            cause: error,
          });
        }
      },
    };
    app.decorate('ingestion', ingestion);
    // Runs before the database closes (hooks run last-registered first): queued envelopes commit.
    app.addHook('onClose', async () => writer.idle());

    await app.register(async (scope) => {
      ingestion.prepareScope(scope);
      scope.post(
        '/api/v1/ingest',
        {
          bodyLimit: options.limits.maxBodyBytes,
          // EnvelopeValidator checks the body one occurrence at a time (partial acceptance); the
          // schema here documents the envelope in the OpenAPI document.
          validatorCompiler: () => () => true,
          schema: {
            tags: ['ingest'],
            summary: 'Ingest a protocol v1 envelope',
            description:
              'JSON, optionally gzip (Content-Encoding: gzip). Occurrences, and optionally log records; valid items are kept when others are refused; the 202 is sent after they are committed. See docs/protocol-v1.md.',
            security: [{ ingestionKey: [] }],
            headers: IngestHeaders,
            body: envelopeBodySchema(),
            response: { 202: IngestResponse, ...errorResponses(400, 401, 413, 415, 429, 503) },
          },
        },
        async (request, reply) => reply.code(202).send(await ingestion.run(() => ingestor.ingest(request.body))),
      );
    });
  },
  { name: 'ingestion', dependencies: ['retention', 'telemetry-store'] },
);
