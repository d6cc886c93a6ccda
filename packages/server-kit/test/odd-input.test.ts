import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type App } from '../src/index.js';

describe('values no store keeps as sent', () => {
  let app: App;
  beforeAll(async () => {
    app = createServer({ logLevel: 'silent', trustProxy: false, bodyLimitBytes: 1 << 20 });
    app.post(
      '/items',
      {
        schema: {
          body: Type.Object({ name: Type.String(), size: Type.Optional(Type.Number()), tags: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
          querystring: Type.Object({ q: Type.Optional(Type.String()), n: Type.Optional(Type.Integer()) }),
        },
      },
      async (request) => ({ received: request.body, query: request.query }),
    );
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (json: string, url = '/items') => app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: json });
  const refusal = async (json: string, url?: string) => {
    const response = await post(json, url);
    expect(response.statusCode, json.slice(0, 80)).toBe(400);
    expect(response.json().error.code).toBe('invalid-request');
    return response.json().error.message as string;
  };

  it('refuses NUL characters and lone surrogates in strings and member names, naming the field', async () => {
    expect(await refusal('{"name":"a\\u0000b"}')).toBe('body.name must not contain a NUL character (\\u0000)');
    expect(await refusal('{"name":"\\ud800"}')).toBe('body.name must not contain a lone UTF-16 surrogate');
    expect(await refusal('{"name":"x\\udc00y"}')).toContain('lone UTF-16 surrogate');
    expect(await refusal('{"name":"ok","tags":{"a\\u0000":1}}')).toContain('body.tags.a');
    expect(await refusal('{"name":"ok"}', '/items?q=%00')).toBe('querystring.q must not contain a NUL character (\\u0000)');
    // A surrogate pair is a character like any other.
    expect((await post('{"name":"\\ud83d\\ude00"}')).json().received).toEqual({ name: '😀' });
  });

  it('refuses numbers that overflow: 1e400, integers beyond 2^53, in bodies and query strings', async () => {
    await refusal('{"name":"ok","size":1e400}');
    expect(await refusal('{"name":"ok","size":123456789012345678901234567890}')).toContain('body.size must be between');
    expect(await refusal('{"name":"ok"}', '/items?n=99999999999999999999999')).toContain('querystring.n');
    await refusal('{"name":"ok","size":-1.5e300}');
    expect((await post('{"name":"ok","size":-9007199254740991.0}')).statusCode).toBe(200);
    expect((await post('{"name":"ok","size":1.5e-300}')).statusCode).toBe(200);
  });

  it('refuses nesting past 64 levels', async () => {
    const deep = `{"name":"ok","tags":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`;
    expect(await refusal(deep)).toBe('body.tags is nested more than 64 levels deep');
  });
});
