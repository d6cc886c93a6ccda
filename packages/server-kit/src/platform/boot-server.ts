import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../errors/api-error.js';
import { requestIdFor } from '../http/request-id.js';

/** A readiness check that does not pass yet, as `/readyz` lists it. */
export interface Waiting {
  readonly check: string;
  readonly reason: string;
}

/** How long a client should wait before trying a starting service again, in seconds. */
const retryAfterSeconds = 5;

/**
 * A service's own body for the `not-ready` answer on paths whose clients expect another error
 * shape than the JSON envelope (OTLP: a google.rpc.Status in the request's encoding); undefined
 * keeps the envelope. `error` is the 503 `not-ready` with its Retry-After header.
 */
export type NotReadyBody = (
  request: { method: string; path: string; contentType: string | undefined },
  error: ApiError,
  requestId: string,
) => { contentType: string; body: string | Buffer } | undefined;

/**
 * Holds the service's port while it starts (waits for PostgreSQL and Redis, migrates, loads):
 * `/healthz` answers 200, so a supervisor sees a live process; `/readyz` answers 503 with
 * what it waits for, in the shape the running service uses; anything else is 503 `not-ready`
 * with `Retry-After`. The service closes it just before it listens on the port itself.
 */
export class BootServer {
  readonly #server: Server;
  readonly #waiting: () => Waiting[];

  constructor(serviceName: string, waiting: () => Waiting[], notReadyBody?: NotReadyBody) {
    this.#waiting = waiting;
    this.#server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0]!;
      const requestId = requestIdFor(request);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const raw = typeof body === 'string' || Buffer.isBuffer(body);
        response.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'x-request-id': requestId,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
          connection: 'close',
          ...headers,
        });
        response.end(raw ? body : JSON.stringify(body));
      };
      if (path === '/healthz') return send(200, { status: 'ok' });
      const failing = this.#waiting();
      if (path === '/readyz') return send(503, { status: 'not-ready', failing });
      const message = `${serviceName} is starting: ${failing.map((item) => item.reason).join('; ') || 'almost ready'}.`;
      const error = new ApiError('not-ready', message, { headers: { 'retry-after': String(retryAfterSeconds) } });
      const own = notReadyBody?.({ method: request.method ?? 'GET', path, contentType: request.headers['content-type'] }, error, requestId);
      if (own) return send(error.statusCode, own.body, { ...error.headers, 'content-type': own.contentType });
      return send(error.statusCode, { error: { code: error.code, message, requestId } }, error.headers);
    });
  }

  /** Listens; rejects with the listen error (EADDRINUSE, EACCES, ...) as Node reports it. */
  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ port, host }, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /**
   * Stops listening; resolves once the requests it is answering are answered (every answer says
   * `connection: close`, so no connection lingers).
   */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    await closed;
  }
}
