import { afterAll, beforeAll } from 'vitest';
import type { App } from '../http/create-server.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * A browser over real HTTP for tests: keeps the cookies servers set (a cookie jar, by name) and
 * sends them back, the way a browser does for one site.
 */
export class HttpBrowser {
  baseUrl: string;
  readonly #cookies = new Map<string, string>();
  /** Headers sent with every request (an X-Forwarded-For standing for this browser's address). */
  readonly headers: Record<string, string>;

  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    this.baseUrl = baseUrl;
    this.headers = headers;
  }

  cookie(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  async fetch(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...this.headers, ...(cookie ? { cookie } : {}), ...init.headers },
      body: init.body,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return response;
  }

  /** POSTs JSON. */
  postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }
}

/**
 * Runs `total` requests spread evenly over `addresses`, each address a browser of its own (its
 * X-Forwarded-For, its cookies), `concurrency` at a time, and counts the answers by status.
 */
export async function requestsFromAddresses(options: {
  baseUrl: string;
  total: number;
  addresses: readonly string[];
  concurrency: number;
  request: (browser: HttpBrowser, index: number) => Promise<Response>;
}): Promise<Map<number, number>> {
  const browsers = options.addresses.map((address) => new HttpBrowser(options.baseUrl, { 'x-forwarded-for': address }));
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < options.total; index = next++) {
      const response = await options.request(browsers[index % browsers.length]!, index);
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return statuses;
}

/** `count` distinct documentation addresses (TEST-NET-3 and beyond), for X-Forwarded-For. */
export function testAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `203.0.${113 + Math.floor(i / 250)}.${(i % 250) + 1}`);
}

/**
 * In a describe block: builds an app on a fresh SQLite test database before the tests, listens
 * on a free port of 127.0.0.1, and closes both after. Returns the base URL's getter.
 */
export function listeningOnSqlite(build: (database: TestDatabase) => Promise<App>): () => string {
  let database: TestDatabase;
  let app: App;
  let baseUrl = '';
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await build(database);
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });
  return () => baseUrl;
}
