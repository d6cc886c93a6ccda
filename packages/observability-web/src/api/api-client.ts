import { currentHref, navigate } from '../state/location.js';

/** An error answer from the service, in its envelope `{"error":{"code","message","requestId"}}`. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Query | undefined;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /**
   * Whether a 401 sends the user to the sign-in page (and back afterwards). The auth forms
   * turn it off: there a 401 means wrong credentials, shown next to the form.
   */
  redirectOnUnauthorized?: boolean;
  /** Set on the one retry after a refused CSRF token was refreshed. */
  csrfRefreshed?: boolean;
}

let csrfToken: string | undefined;

/** Remembers the session's CSRF token; every state-changing request sends it. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Sends the user to sign in, remembering where they were. */
export function redirectToLogin(): void {
  const here = currentHref();
  if (window.location.pathname === '/login') return;
  navigate(`/login?next=${encodeURIComponent(here)}`, { replace: true });
}

/** An API path with its query string; undefined and empty values are left out. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function errorFrom(response: Response): Promise<ApiRequestError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string; requestId?: string } };
    if (body.error?.code) return new ApiRequestError(response.status, body.error.code, body.error.message ?? body.error.code, body.error.requestId ?? requestId);
  } catch {
    // Not our envelope (a proxy's error page, say): describe it by its status below.
  }
  return new ApiRequestError(response.status, 'http-error', `The service answered ${response.status} ${response.statusText}.`, requestId);
}

/** Calls the service's JSON API with the session cookie; throws ApiRequestError on an error answer. */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    if (csrfToken) headers['x-csrf-token'] = csrfToken;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
  }
  const response = await fetch(apiUrl(path, options.query), {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: options.signal ?? null,
  });
  if (!response.ok) {
    const error = await errorFrom(response);
    // Signing in from another tab starts a new session, leaving this tab's token stale: take the
    // current session's token and try once more.
    if (error.code === 'csrf-failed' && !options.csrfRefreshed) {
      const session = await apiRequest<{ csrfToken: string }>('/api/v1/auth/session', { redirectOnUnauthorized: options.redirectOnUnauthorized ?? true });
      setCsrfToken(session.csrfToken);
      return apiRequest<T>(path, { ...options, csrfRefreshed: true });
    }
    if (response.status === 401 && options.redirectOnUnauthorized !== false) {
      setCsrfToken(undefined);
      redirectToLogin();
    }
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

const inFlightGets = new Map<string, Promise<unknown>>();

/**
 * GETs `path`. Panels that need the same data at the same time (the filter bar and the services
 * table both read the service list) share one request; a caller's abort only stops its own wait.
 */
export function apiGet<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
  const url = apiUrl(path, query);
  let shared = inFlightGets.get(url) as Promise<T> | undefined;
  if (!shared) {
    shared = apiRequest<T>(url).finally(() => inFlightGets.delete(url));
    inFlightGets.set(url, shared);
  }
  if (!signal) return shared;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new DOMException('The request was aborted.', 'AbortError'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export const apiPost = <T>(path: string, body: unknown = {}, options: Omit<RequestOptions, 'method' | 'body'> = {}) =>
  apiRequest<T>(path, { ...options, method: 'POST', body });
export const apiPut = <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PUT', body });
export const apiPatch = <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PATCH', body });
export const apiDelete = <T>(path: string) => apiRequest<T>(path, { method: 'DELETE' });
