// A small HTTP proxy in front of the real game service that misbehaves on request: it drops
// connections before or after the service acted, delays, and answers 500 or 429 itself.
import { createServer, request as forward, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ProxyFault =
  /** Close the connection without forwarding: the service never sees the request. */
  | { kind: 'drop' }
  /** Forward, let the service act, then close the connection instead of answering. */
  | { kind: 'lose-response' }
  /** Hold the request this long before forwarding it. */
  | { kind: 'delay'; ms: number }
  | { kind: 'status'; status: 500 | 502 | 503 }
  | { kind: 'rate-limit'; retryAfterSeconds: number };

export interface FaultProxy {
  baseUrl: string;
  /** Faults applied, in order, to the next requests whose path contains `pathIncludes`. */
  plan(pathIncludes: string, faults: ProxyFault[]): void;
  /** Every request seen: path and what the proxy did with it. */
  readonly log: { method: string; path: string; action: string }[];
  /** While down, every connection is dropped, as if the network were gone. */
  down: boolean;
  close(): Promise<void>;
}

/** Files the proxy serves itself, so a browser page and the API share one origin. */
export type StaticFiles = Record<string, { contentType: string; body: string }>;

export async function startFaultProxy(upstream: string, files: StaticFiles = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const plans: { pathIncludes: string; faults: ProxyFault[] }[] = [];
  const sockets = new Set<Socket>();
  const upstreamRequests = new Set<ClientRequest>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const log: FaultProxy['log'] = [];

  const server: Server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    const file = files[path];
    if (file) {
      outgoing.writeHead(200, { 'content-type': file.contentType });
      outgoing.end(file.body);
      return;
    }
    const entry = { method: incoming.method ?? 'GET', path, action: 'forward' };
    log.push(entry);
    if (proxy.down) {
      entry.action = 'down';
      incoming.socket.destroy();
      return;
    }
    const plan = plans.find((candidate) => path.includes(candidate.pathIncludes) && candidate.faults.length > 0);
    const fault = plan?.faults.shift();
    entry.action = fault ? fault.kind : 'forward';
    switch (fault?.kind) {
      case 'drop':
        incoming.socket.destroy();
        return;
      case 'status':
        outgoing.writeHead(fault.status, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ error: { code: 'internal-error', message: 'injected', requestId: 'proxy' } }));
        return;
      case 'rate-limit':
        outgoing.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.retryAfterSeconds) });
        outgoing.end(JSON.stringify({ error: { code: 'rate-limited', message: 'injected', requestId: 'proxy' } }));
        return;
      case 'delay':
        // The body is read now and sent late, even if the client gave up meanwhile: the
        // service then acts on a request whose client already counted it as failed.
        void readBody(incoming).then((body) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            send(incoming, outgoing, body, false);
          }, fault.ms);
          timers.add(timer);
        });
        return;
      case 'lose-response':
        void readBody(incoming).then((body) => send(incoming, outgoing, body, true));
        return;
      default:
        void readBody(incoming).then((body) => send(incoming, outgoing, body, false));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function readBody(incoming: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve(Buffer.concat(chunks)));
      incoming.on('error', () => resolve(Buffer.concat(chunks)));
    });
  }

  function send(incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer, loseResponse: boolean): void {
    const upstreamRequest = forward(
      // No keep-alive towards the service: nothing lingers to hold up its shutdown.
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host }, agent: false },
      (upstreamResponse) => {
        if (loseResponse) {
          // Read the whole answer so the service finished its work, then break the connection.
          upstreamResponse.resume();
          upstreamResponse.on('end', () => incoming.socket.destroy());
          return;
        }
        outgoing.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(outgoing);
      },
    );
    upstreamRequests.add(upstreamRequest);
    upstreamRequest.on('close', () => upstreamRequests.delete(upstreamRequest));
    upstreamRequest.on('error', () => incoming.socket.destroy());
    upstreamRequest.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: FaultProxy = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan(pathIncludes, faults) {
      plans.push({ pathIncludes, faults: [...faults] });
    },
    log,
    down: false,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      for (const upstreamRequest of upstreamRequests) upstreamRequest.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
