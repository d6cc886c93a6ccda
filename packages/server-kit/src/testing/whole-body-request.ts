import { request } from 'node:http';

/** What a server answered, as a client that sent its whole body first saw it. */
export interface WholeBodyAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface WholeBodyRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body: Buffer;
  /** Sent in chunks of this size, without Content-Length (chunked), when set. */
  chunkBytes?: number;
}

/**
 * Sends the whole body with Node's http client, as exporters do, and answers once the body is
 * written and the answer read. Rejects with the socket error (EPIPE, ECONNRESET) when the server
 * closed the connection before it had read the body, even if an answer came first: such a
 * client sees a network failure, not the answer.
 */
export function sendWholeBodyThenRead(options: WholeBodyRequest): Promise<WholeBodyAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.chunkBytes) headers['content-length'] = String(options.body.length);
    const outgoing = request(options.url, { method: options.method ?? 'POST', headers, agent: false });
    let written = false;
    let answer: WholeBodyAnswer | undefined;
    let failed = false;
    const settle = () => {
      if (written && answer && !failed) resolve(answer);
    };
    outgoing.on('error', (error) => {
      failed = true;
      reject(error);
    });
    outgoing.on('finish', () => {
      written = true;
      settle();
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        failed = true;
        reject(error);
      });
      response.on('end', () => {
        answer = { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') };
        // A socket error after the answer (the server reset the rest of the upload) comes a moment later.
        setImmediate(settle);
      });
    });
    const step = options.chunkBytes ?? options.body.length;
    for (let offset = 0; offset < options.body.length; offset += step) outgoing.write(options.body.subarray(offset, offset + step));
    outgoing.end();
  });
}
