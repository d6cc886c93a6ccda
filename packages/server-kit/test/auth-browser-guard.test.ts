import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertCsrfToken, assertSameOrigin, createServer, csrfTokenFor, type App } from '../src/index.js';

const sessionId = 'a-session-id-for-the-test';
const token = csrfTokenFor(sessionId);
let app: App;

beforeAll(async () => {
  app = createServer({ logLevel: 'silent', trustProxy: false, bodyLimitBytes: 1024 });
  app.post('/header', async (request) => {
    assertSameOrigin(request, ['https://dash.example.com']);
    assertCsrfToken(request, token);
    return { ok: true };
  });
  app.post('/form', async (request) => {
    assertCsrfToken(request, token, (request.body as { csrfToken?: string }).csrfToken);
    return { ok: true };
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

const post = (url: string, headers: Record<string, string>, payload: object = {}) => app.inject({ method: 'POST', url, headers, payload });

it('accepts the session token from the header, with no origin headers (non-browser clients)', async () => {
  expect((await post('/header', { 'x-csrf-token': token })).statusCode).toBe(200);
});

it('refuses a missing, empty or wrong token with 403 csrf-failed', async () => {
  const cases: Array<Record<string, string>> = [{}, { 'x-csrf-token': '' }, { 'x-csrf-token': csrfTokenFor('another session') }];
  for (const headers of cases) {
    const response = await post('/header', headers);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('csrf-failed');
  }
});

it('refuses Sec-Fetch-Site: cross-site and foreign or null origins, accepts same-site, its own and allowed origins', async () => {
  const refused: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, { origin: 'null' }];
  for (const headers of refused) expect((await post('/header', { ...headers, 'x-csrf-token': token })).statusCode).toBe(403);
  const accepted: Array<Record<string, string>> = [
    { 'sec-fetch-site': 'same-origin' },
    { 'sec-fetch-site': 'same-site' },
    { 'sec-fetch-site': 'none' },
    { origin: 'http://localhost:80', host: 'localhost:80' },
    { origin: 'HTTPS://DASH.EXAMPLE.COM' },
  ];
  for (const headers of accepted) expect((await post('/header', { ...headers, 'x-csrf-token': token })).statusCode, JSON.stringify(headers)).toBe(200);
});

it('takes the token from a form field when one is given', async () => {
  expect((await post('/form', {}, { csrfToken: token })).statusCode).toBe(200);
  expect((await post('/form', { 'x-csrf-token': token }, { csrfToken: 'wrong' })).statusCode).toBe(403);
});
