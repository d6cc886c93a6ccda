import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A body refused before it was read (too large, wrong type, no credentials) is still read and
 * dropped, up to this many times the route's body limit, before the error is sent. A client that
 * sends its whole body before reading the answer (Node's fetch and http, most exporters) then
 * reads a 413 instead of a broken pipe, and does not retry a payload that can never fit.
 */
export const discardedBodyLimitMultiple = 4;
/** The longest a refused body is waited for before the answer is sent and the connection closed. */
export const discardTimeoutMs = 10_000;

/**
 * Reads and discards what is left of a request body the route did not read, then calls `then`.
 * When the body ends within the bound, the connection may stay open; when it is larger than the
 * bound (by its Content-Length or as it arrives), stalls, or fails, the answer says
 * `Connection: close` and is sent at once.
 */
export function discardUnreadBody(request: FastifyRequest, reply: FastifyReply, then: () => void): void {
  const raw = request.raw;
  const maxBytes = discardedBodyLimitMultiple * request.routeOptions.bodyLimit;
  const declared = Number(raw.headers['content-length']);
  if (declared > maxBytes) {
    reply.header('connection', 'close');
    then();
    return;
  }
  let discarded = 0;
  const finish = (ended: boolean) => {
    clearTimeout(timer);
    raw.off('data', onData);
    raw.off('end', onEnd);
    raw.off('error', onError);
    if (ended) reply.removeHeader('connection');
    else reply.header('connection', 'close');
    then();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxBytes) finish(false);
  };
  const onEnd = () => finish(true);
  const onError = () => finish(false);
  const timer = setTimeout(() => finish(false), discardTimeoutMs);
  raw.on('data', onData);
  raw.on('end', onEnd);
  raw.on('error', onError);
  raw.resume();
}
