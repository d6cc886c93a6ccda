import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Which requests get a log line: every one, those answered with 5xx or slower than the
 * threshold, or none (errors are still logged by the error handler).
 */
export type RequestLogMode = 'all' | 'errors-and-slow' | 'off';

/** The mode `LOG_REQUESTS` asks for, or the one that suits the log format when it is unset. */
export function resolveRequestLogMode(mode: RequestLogMode | undefined, format: 'pretty' | 'json'): RequestLogMode {
  return mode ?? (format === 'pretty' ? 'errors-and-slow' : 'all');
}

/**
 * One line per logged request, when it completes (not a second one when it arrives):
 * `GET /v1/games/demo/leaderboards/high-score 200 3 ms`, with the method, URL, status and time
 * also as fields. A person at a terminal sees failures and slow requests, not every 200.
 */
export class RequestLogController extends LogController {
  readonly #mode: RequestLogMode;
  readonly #slowRequestMs: number;

  constructor(mode: RequestLogMode, slowRequestMs: number) {
    super({ disableRequestLogging: mode === 'off' });
    this.#mode = mode;
    this.#slowRequestMs = slowRequestMs;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.#mode === 'off') return;
    const responseTime = reply.elapsedTime;
    const failed = Boolean(error) || reply.statusCode >= 500;
    const slow = responseTime >= this.#slowRequestMs;
    if (this.#mode === 'errors-and-slow' && !failed && !slow) return;
    const level = failed ? 'error' : slow ? 'warn' : 'info';
    const req = { method: request.method, url: request.url, remoteAddress: request.ip };
    const message = `${request.method} ${request.url} ${reply.statusCode} ${Math.round(responseTime)} ms${slow ? ' (slow)' : ''}`;
    reply.log[level]({ req, res: { statusCode: reply.statusCode }, responseTime, ...(error ? { err: error } : {}) }, message);
  }
}
