import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';
import type { OtlpEncoding } from '../src/otlp/otlp-encoding.js';
import { decodeBody, encodeTraceRequest, jsonSpan, jsonTraceRequest, statusType } from './support/otlp-requests.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const contentType: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

// The real service (src/main.ts) waiting for a PostgreSQL that does not answer: its port is held
// by the boot server, which answers every request 503 not-ready until the service is ready.
describe('OTLP/HTTP while the service starts', () => {
  let baseUrl: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'otlp-not-ready-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', main], {
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        LOG_FORMAT: 'json',
        OTLP_GRPC_PORT: '0',
        OBSERVABILITY_PORT: String(port),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/nothing-listens`,
        STARTUP_TIMEOUT_SECONDS: '120',
        SERVICE_API_KEY: 'not-ready-test-key-0123456789',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    stop = async () => {
      child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    };
    baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const live = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
      if (live?.ok) break;
      if (Date.now() > deadline) throw new Error('the service did not take its port within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    await stop?.();
  });

  for (const encoding of ['protobuf', 'json'] as const) {
    it(`${encoding}: an export is 503 with Retry-After and a google.rpc.Status (UNAVAILABLE, RetryInfo) in the request's encoding`, async () => {
      for (const path of ['/v1/traces', '/v1/logs']) {
        const response = await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer not-ready-test-key-0123456789', 'content-type': contentType[encoding] },
          body: encodeTraceRequest(jsonTraceRequest([jsonSpan()]), encoding),
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(response.headers.get('content-type')).toBe(contentType[encoding]);
        const status = decodeBody(statusType, Buffer.from(await response.arrayBuffer()), encoding);
        expect(status).toEqual({
          code: 14,
          message: expect.stringMatching(/^observability-service is starting: waiting for PostgreSQL/),
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'not-ready', domain: 'observability.playstack', metadata: { requestId: response.headers.get('x-request-id') } },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: encoding === 'json' ? '5s' : { seconds: '5' } },
          ],
        });
      }
    });
  }

  it('other requests keep the JSON error envelope', async () => {
    const response = await fetch(`${baseUrl}/api/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not-ready');
  });
});
