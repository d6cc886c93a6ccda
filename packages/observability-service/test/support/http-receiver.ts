import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A local HTTP server standing in for webhook receivers: records every request and answers with
 * the status `answer` gives (by path and how many requests that path has had before).
 */
export class HttpReceiver {
  readonly requests: ReceivedRequest[] = [];
  readonly #server: Server;
  #answer: (path: string, previous: number) => number;

  constructor(answer: (path: string, previous: number) => number = () => 200) {
    this.#answer = answer;
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const previous = this.requests.filter((received) => received.path === path).length;
        this.requests.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(this.#answer(path, previous), { 'content-type': 'text/plain' }).end('ok');
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  at(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
