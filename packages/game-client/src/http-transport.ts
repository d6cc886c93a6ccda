import { GameServiceError, NetworkError } from './errors.js';
import { parseRetryAfterMs } from './retry-policy.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** The game service's origin (and path prefix, if any), e.g. `https://games.example.com`. */
  baseUrl: string;
  fetch: FetchFunction;
  requestTimeoutMs: number;
  now: () => number;
  /** The `traceparent` for a call, if any (see trace-context.ts). */
  traceparent?: ((call: { method: string; path: string }) => string | undefined) | undefined;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  accessToken?: string;
}

/** A response that arrived whole; its status may still be an error. */
export interface JsonResponse {
  status: number;
  body: unknown;
  retryAfterMs: number | undefined;
}

/** The service path of a game endpoint: `/v1/games/<gameId><suffix>` (suffix already encoded). */
export function gamePath(gameId: string, suffix: string): string {
  return `/v1/games/${encodeURIComponent(gameId)}${suffix}`;
}

/**
 * Sends one JSON request. Anything that prevents a complete answer (no connection, reset,
 * timeout, a truncated or unreadable 2xx body) becomes a NetworkError: the caller cannot know
 * whether the service acted, which is safe to retry only because run ids are idempotent.
 */
export async function sendJson(options: TransportOptions, request: JsonRequest): Promise<JsonResponse> {
  const url = new URL(options.baseUrl.replace(/\/+$/, '') + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.accessToken !== undefined) headers.authorization = `Bearer ${request.accessToken}`;
  const traceparent = options.traceparent?.({ method: request.method, path: request.path });
  if (traceparent !== undefined) headers.traceparent = traceparent;

  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.requestTimeoutMs);
  try {
    let response: Response;
    let text: string;
    try {
      response = await options.fetch(url.toString(), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: abort.signal,
      });
      text = await response.text();
    } catch (error) {
      const reason = abort.signal.aborted ? `no answer within ${options.requestTimeoutMs} ms` : 'connection failed';
      throw new NetworkError(`${request.method} ${request.path}: ${reason}`, { cause: error });
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch (error) {
      if (response.ok) throw new NetworkError(`${request.method} ${request.path}: unreadable response body`, { cause: error });
      body = undefined;
    }
    return { status: response.status, body, retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after'), options.now()) };
  } finally {
    clearTimeout(timer);
  }
}

/** Turns a non-2xx response into the error callers see, keeping the envelope's code. */
export function serviceErrorOf(response: JsonResponse): GameServiceError {
  const envelope = (response.body as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined)?.error;
  const code = typeof envelope?.code === 'string' ? envelope.code : `http-${response.status}`;
  const message = typeof envelope?.message === 'string' ? envelope.message : `the game service answered ${response.status}`;
  const requestId = typeof envelope?.requestId === 'string' ? envelope.requestId : undefined;
  return new GameServiceError(response.status, code, message, requestId, response.retryAfterMs);
}

export function isSuccess(response: JsonResponse): boolean {
  return response.status >= 200 && response.status < 300;
}
