import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installErrorHandling } from '../errors/error-handler.js';
import { requestIdFor } from './request-id.js';
import { createValidatorCompiler } from './validation.js';
import { loggerOptions, type LogLevel } from '../logging/logger.js';

export interface ServerOptions {
  logLevel: LogLevel;
  trustProxy: boolean;
  /** Default body limit; routes may set their own. */
  bodyLimitBytes: number;
  /** Extra Fastify options (tests pass a logger stream, for example). */
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

/**
 * A Fastify instance with the kit's conventions: request ids echoed on every response, pino
 * logging, JSON-only bodies (415 otherwise), strict body validation and the one error envelope.
 */
export function createServer(options: ServerOptions): App {
  const app = Fastify({
    logger: loggerOptions(options.logLevel),
    genReqId: requestIdFor,
    requestIdHeader: false,
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimitBytes,
    return503OnClosing: false,
    ...options.fastify,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  app.removeContentTypeParser('text/plain');
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take callbacks: an async hook costs a promise and a microtask each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Requests still in flight at shutdown finish normally; their keep-alive connections are then
  // closed, or the server would wait on them until the shutdown timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  installErrorHandling(app);
  return app as unknown as App;
}
