import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { answerClientError, answerFrameworkError, installErrorHandling } from '../errors/error-handler.js';
import { requestIdFor } from './request-id.js';
import { discardUnreadBody } from './unread-body.js';
import { strictSchemaController } from './validation.js';
import { oddRequestValue } from './odd-values.js';
import { createLogger, resolveLogFormat, type LogFormat, type LogLevel } from '../logging/logger.js';
import type { LineSink } from '../logging/pretty-lines.js';
import { traceRequests, type RequestSpanOptions } from '../telemetry/request-spans.js';
import type { Tracing } from '../telemetry/tracing.js';
import { RequestLogController, resolveRequestLogMode, type RequestLogMode } from '../logging/request-log.js';

export interface ServerOptions {
  logLevel: LogLevel;
  trustProxy: boolean;
  /** Default body limit; routes may set their own. */
  bodyLimitBytes: number;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: LineSink | undefined;
  /** How the service logs; unset members keep the defaults (JSON, every request). */
  log?: {
    /** The service's name, on every line. */
    name?: string | undefined;
    format?: LogFormat | undefined;
    requests?: RequestLogMode | undefined;
    /** A request slower than this is logged (at warn) in every mode but `off`. */
    slowRequestMs?: number | undefined;
  };
  /** Set when logs are exported (`startLogExport`): each JSON line is handed to it too. */
  exportLogLine?: ((line: string) => void) | undefined;
  /** Set when tracing is on: a server span per request, and span ids in log lines. */
  tracing?: { tracing: Tracing; requests?: RequestSpanOptions | undefined } | undefined;
  /** Extra Fastify options. */
  fastify?: Partial<FastifyServerOptions>;
}

/** The Fastify instance type both services use (TypeBox type provider). */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const defaultSlowRequestMs = 1_000;

/**
 * A Fastify instance with the kit's conventions: request ids echoed and `nosniff` on every
 * response, pino logging, JSON-only bodies (415 otherwise), strict body validation, the one error
 * envelope (for malformed URLs and HTTP too), and refused bodies read before the error is sent.
 */
export function createServer(options: ServerOptions): App {
  // A test's stream is no terminal: JSON unless asked otherwise.
  const format = options.log?.format ?? (options.logStream ? 'json' : resolveLogFormat(undefined));
  const app = Fastify({
    loggerInstance: createLogger({ level: options.logLevel, name: options.log?.name, format, destination: options.logStream, traceIds: options.tracing !== undefined, exportLine: options.exportLogLine }),
    logController: new RequestLogController(resolveRequestLogMode(options.log?.requests, format), options.log?.slowRequestMs ?? defaultSlowRequestMs),
    genReqId: requestIdFor,
    requestIdHeader: false,
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimitBytes,
    return503OnClosing: false,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    schemaController: strictSchemaController,
    ...options.fastify,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First hook of all: every later hook and the handler run in the request's span.
  if (options.tracing) traceRequests(app, options.tracing.tracing, options.tracing.requests);
  app.removeContentTypeParser('text/plain');
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take callbacks: an async hook costs a promise and a microtask each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Browsers must take every answer for the type it declares (JSON is never run as a script).
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
  // After validation, before any handler (in every plugin, whatever validator it compiles with):
  // values no store keeps as sent are a 400 naming the field, not a database error.
  app.addHook('preHandler', (request, _reply, done) => {
    done(oddRequestValue(request));
  });
  // Requests still in flight at shutdown finish normally; their keep-alive connections are then
  // closed, or the server would wait on them until the shutdown timeout.
  const closeWhenShuttingDown = (reply: FastifyReply) => {
    if (closing) reply.header('connection', 'close');
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is false only on a real socket whose body the route did not read (an error
    // answered before the body: too large, wrong type, no credentials).
    if (reply.statusCode >= 400 && request.raw.complete === false) {
      return discardUnreadBody(request, reply, () => {
        closeWhenShuttingDown(reply);
        done(null, payload);
      });
    }
    closeWhenShuttingDown(reply);
    done(null, payload);
  });
  installErrorHandling(app);
  return app;
}
