import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { CapturedLogs, createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

const html = { accept: 'text/html,application/xhtml+xml,application/xhtml+xml;q=0.9,*/*;q=0.8' };
const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';

let database: TestDatabase;
let buildDir: string;

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  // A build of the same shape Vite produces, so these tests do not depend on building the app.
  buildDir = mkdtempSync(join(tmpdir(), 'dashboard-build-'));
  mkdirSync(join(buildDir, 'assets'));
  writeFileSync(join(buildDir, 'index.html'), indexHtml);
  writeFileSync(join(buildDir, 'assets', 'index-Ab12Cd34.js'), 'console.log("dashboard");');
  writeFileSync(join(buildDir, 'assets', 'index-Ef56Gh78.css'), 'body{margin:0}');
  writeFileSync(join(buildDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
});
afterAll(async () => {
  rmSync(buildDir, { recursive: true, force: true });
  await database.dispose();
});

describe('with a dashboard build', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database, { OBSERVABILITY_WEB_DIR: buildDir });
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves index.html at / with no-cache and the security headers', async () => {
    const response = await app.inject({ method: 'GET', url: '/', headers: html });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toBe(indexHtml);
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('same-origin');
  });

  it('answers client routes a browser navigates to with index.html (SPA fallback)', async () => {
    for (const url of ['/services/checkout', '/traces/0123456789abcdef0123456789abcdef', '/settings/keys?range=7d', '/services/api.v2']) {
      const response = await app.inject({ method: 'GET', url, headers: html });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(indexHtml);
      expect(response.headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('serves hashed assets with a year of immutable caching and their content type', async () => {
    const script = await app.inject({ method: 'GET', url: '/assets/index-Ab12Cd34.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toBe('console.log("dashboard");');
    expect(script.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const style = await app.inject({ method: 'GET', url: '/assets/index-Ef56Gh78.css' });
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    expect(style.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves the build top-level files with a short cache', async () => {
    const response = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('answers a missing asset with the JSON 404 envelope, not the app', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-00000000.js', headers: html });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'not-found', requestId: response.headers['x-request-id'] } });
  });

  it('never shadows the API or the system endpoints', async () => {
    for (const url of ['/api/v1/no-such-endpoint', '/api', '/v1/traces', '/metrics/extra', '/openapi.json/x']) {
      const response = await app.inject({ method: 'GET', url, headers: html });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ error: { code: 'not-found' } });
    }
    const health = await app.inject({ method: 'GET', url: '/healthz', headers: html });
    expect(health.json()).toEqual({ status: 'ok' });
    const openapi = await app.inject({ method: 'GET', url: '/openapi.json', headers: html });
    expect(openapi.json()).toMatchObject({ openapi: '3.1.0' });
    const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: html });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('answers non-browser requests for unknown paths with the JSON 404 envelope', async () => {
    const json = await app.inject({ method: 'GET', url: '/services/checkout', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ error: { code: 'not-found' } });
    const post = await app.inject({ method: 'POST', url: '/services/checkout', headers: { ...html, 'content-type': 'application/json' }, payload: '{}' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toMatchObject({ error: { code: 'not-found' } });
  });

  it('keeps the dashboard routes out of the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path === '/' || path.startsWith('/assets') || path === '/*' || path === '/favicon.svg')).toEqual([]);
  });
});

describe('asset paths that climb out of the build, over a real socket', () => {
  const logs = new CapturedLogs();
  let app: App;
  let port: number;
  beforeAll(async () => {
    app = await buildTestApp(database, { OBSERVABILITY_WEB_DIR: buildDir, LOG_LEVEL: 'info' }, { logStream: logs });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
  });

  /** Raw paths, sent as written (a URL object, as fetch uses, would resolve the dot segments first). */
  const get = (path: string) =>
    new Promise<{ status: number; body: string; nosniff: unknown }>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, path, method: 'GET', headers: html }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, nosniff: response.headers['x-content-type-options'] }));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });

  it('answers them 404 with the envelope, and logs nothing above info', async () => {
    const paths = ['/assets/..', '/assets/../', '/assets/%2e%2e/', '/assets/%2e%2e/index.html', '/assets/%2E%2e/%2e%2e/etc/passwd', '/assets/../../etc/passwd', '/assets/.', '/assets/%252e%252e/index.html', '/assets/..%5cindex.html', '/assets/%00', '/assets/%2e%2e', '/assets/.%2e/index.html', '/assets/%2e./', '/assets/%c0%ae%c0%ae/index.html', '/assets/..;/index.html', '/assets/%ff', '/assets/%', '/assets/%u002e%u002e/', '/assets/' + '../'.repeat(200)];
    for (const path of paths) {
      const answer = await get(path);
      expect([400, 404], path).toContain(answer.status);
      expect(JSON.parse(answer.body).error.code, path).toMatch(/^(not-found|invalid-request)$/);
      expect(answer.nosniff, path).toBe('nosniff');
    }
    expect((await get('/assets/index-Ab12Cd34.js')).status).toBe(200);
    expect(logs.atLeast('warn')).toEqual([]);
  });
});

describe('without a dashboard build', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database, { OBSERVABILITY_WEB_DIR: join(buildDir, 'missing') });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers the dashboard paths with 503 saying how to build it, and the API keeps working', async () => {
    const response = await app.inject({ method: 'GET', url: '/', headers: html });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: { code: 'not-ready', message: expect.stringContaining('npm run build') } });
    expect((await app.inject({ method: 'GET', url: '/services', headers: html })).statusCode).toBe(503);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
  });
});
