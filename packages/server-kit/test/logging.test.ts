import { describe, expect, it } from 'vitest';
import { createServer, formatLine, type App, type LogFormat, type RequestLogMode } from '../src/index.js';

/** A server whose log lines land in `lines`, with a fast, a slow and a failing route. */
async function serverLoggingTo(lines: string[], log: { format: LogFormat; requests?: RequestLogMode }): Promise<App> {
  const app = createServer({
    logLevel: 'info',
    trustProxy: false,
    bodyLimitBytes: 1024,
    logStream: { write: (line: string) => lines.push(line) },
    log: { name: 'demo-service', slowRequestMs: 100, ...log },
  });
  app.get('/fast', async () => ({ ok: true }));
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { ok: true };
  });
  app.get('/boom', async () => {
    throw new Error('the disk is on fire');
  });
  await app.ready();
  return app;
}

async function requestEach(app: App, ...urls: string[]): Promise<void> {
  for (const url of urls) await app.inject({ method: 'GET', url });
}

describe('request log lines', () => {
  it('as JSON (not a terminal): one line per request when it completes, each with the service name', async () => {
    const lines: string[] = [];
    const app = await serverLoggingTo(lines, { format: 'json' });
    await requestEach(app, '/fast');
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({ level: 30, name: 'demo-service', msg: expect.stringMatching(/^GET \/fast 200 \d+ ms$/), req: expect.objectContaining({ method: 'GET', url: '/fast' }), res: { statusCode: 200 } }),
    ]);
    await app.close();
  });

  it('errors-and-slow (a terminal\'s default): a failure and a slow request, not every 200', async () => {
    const lines: string[] = [];
    const app = await serverLoggingTo(lines, { format: 'pretty' });
    await requestEach(app, '/fast', '/fast', '/slow', '/boom');
    const requestLines = lines.filter((line) => / \/(fast|slow|boom) \d{3} /.test(line));
    expect(requestLines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d WARN  demo-service  GET \/slow 200 \d+ ms \(slow\) reqId=\S+\n$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d ERROR demo-service  GET \/boom 500 \d+ ms reqId=\S+\n$/),
    ]);
    // The error itself, with its stack under it for the person who has to fix it.
    expect(lines.find((line) => line.includes('unexpected error'))).toMatch(/ERROR demo-service  unexpected error \(Error: the disk is on fire\) reqId=\S+\n {4}at /);
    await app.close();
  });

  it('off: no request lines at all, errors still logged', async () => {
    const lines: string[] = [];
    const app = await serverLoggingTo(lines, { format: 'json', requests: 'off' });
    await requestEach(app, '/fast', '/slow', '/boom');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['unexpected error']);
    await app.close();
  });
});

describe('readable lines', () => {
  it('turn a pino JSON line into time, level, service name, message and the other fields', () => {
    const time = new Date(2026, 10, 21, 9, 5, 7).getTime();
    expect(formatLine(JSON.stringify({ level: 40, time, pid: 1, hostname: 'vm', name: 'game-service', msg: 'PostgreSQL is slow', attempt: 3, url: 'a b' }), false)).toBe(
      '09:05:07 WARN  game-service  PostgreSQL is slow attempt=3 url="a b"\n',
    );
    expect(formatLine(JSON.stringify({ level: 30, time, name: 'x', msg: 'hi' }), true)).toBe('09:05:07 \u001b[32mINFO \u001b[39m \u001b[1mx\u001b[22m  hi\n');
  });
});
