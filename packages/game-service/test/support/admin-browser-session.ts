import type { App } from '@playstack/server-kit';

type InjectResponse = Awaited<ReturnType<App['inject']>>;

/**
 * A minimal browser for the admin pages over `app.inject`: keeps cookies, reads the CSRF token
 * out of each HTML form, and posts forms the way a browser does (urlencoded, same origin).
 */
export class AdminBrowser {
  readonly #app: App;
  readonly #cookies = new Map<string, string>();
  csrfToken = '';

  constructor(app: App) {
    this.#app = app;
  }

  get cookieHeader(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  #remember(response: InjectResponse): InjectResponse {
    for (const cookie of response.cookies) {
      if (cookie.maxAge === 0 || (cookie.expires && cookie.expires.getTime() <= Date.now())) this.#cookies.delete(cookie.name);
      else this.#cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrfToken = token;
    return response;
  }

  async get(url: string, accept = 'text/html'): Promise<InjectResponse> {
    return this.#remember(await this.#app.inject({ method: 'GET', url, headers: { accept, cookie: this.cookieHeader } }));
  }

  /** Posts a form with the last CSRF token seen (unless `_csrf` is given, or null to omit it). */
  async post(url: string, fields: Record<string, string>, options: { csrf?: string | null; accept?: string; headers?: Record<string, string> } = {}): Promise<InjectResponse> {
    const form = new URLSearchParams(fields);
    const csrf = options.csrf === undefined ? this.csrfToken : options.csrf;
    if (csrf !== null) form.set('_csrf', csrf);
    return this.#remember(
      await this.#app.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: options.accept ?? 'text/html',
          cookie: this.cookieHeader,
          ...options.headers,
        },
        payload: form.toString(),
      }),
    );
  }

  /** Registers (the first administrator, or with an invitation) and stays signed in. */
  async register(fields: { email: string; name: string; password: string; invitation?: string }): Promise<InjectResponse> {
    await this.get('/admin/register');
    return this.post('/admin/register', fields);
  }

  async login(email: string, password: string): Promise<InjectResponse> {
    await this.get('/admin/login');
    return this.post('/admin/login', { email, password });
  }
}
