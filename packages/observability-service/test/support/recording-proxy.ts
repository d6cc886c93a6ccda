import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One exchange the proxy passed through: what the client sent and what it got back. */
export interface RecordedExchange {
  path: string;
  requestHeaders: IncomingHttpHeaders;
  /** Bytes of the request body as sent (compressed when the client compressed it). */
  requestBytes: number;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RecordingProxy {
  url: string;
  exchanges: RecordedExchange[];
  close(): Promise<void>;
}

/**
 * A plain HTTP proxy in front of a server that records every exchange, so a test sees exactly
 * what a real client (an OTLP exporter) saw: each attempt, its status, headers and body.
 * `onExchange` runs before the response is passed on (to recover a fault after the first refusal).
 */
export async function startRecordingProxy(target: string, onExchange?: (exchange: RecordedExchange) => Promise<void> | void): Promise<RecordingProxy> {
  const exchanges: RecordedExchange[] = [];
  const targetUrl = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const requestBody = Buffer.concat(chunks);
      const forward = httpRequest(
        { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: { ...req.headers, host: targetUrl.host } },
        (upstream) => {
          const body: Buffer[] = [];
          upstream.on('data', (chunk: Buffer) => body.push(chunk));
          upstream.on('end', async () => {
            const exchange = { path: req.url ?? '', requestHeaders: req.headers, requestBytes: requestBody.length, status: upstream.statusCode ?? 0, headers: upstream.headers, body: Buffer.concat(body) };
            exchanges.push(exchange);
            await onExchange?.(exchange);
            res.writeHead(exchange.status, upstream.headers);
            res.end(exchange.body);
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Starts recording proxies for a suite's tests, each closed after the test that started it. */
export function useRecordingProxies(): (target: string, onExchange?: (exchange: RecordedExchange) => Promise<void> | void) => Promise<RecordingProxy> {
  const open: RecordingProxy[] = [];
  afterEach(async () => {
    for (const proxy of open.splice(0)) await proxy.close();
  });
  return async (target, onExchange) => {
    const proxy = await startRecordingProxy(target, onExchange);
    open.push(proxy);
    return proxy;
  };
}
