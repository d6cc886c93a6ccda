import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '@playstack/server-kit';

const gunzipAsync = promisify(gunzip);

/** Body limits of the ingest endpoints, in bytes. */
export interface IngestBodyLimits {
  /** Bytes on the wire (compressed or not). */
  maxBodyBytes: number;
  /** Bytes of JSON after decompression. */
  maxDecompressedBytes: number;
}

async function decode(request: FastifyRequest, body: Buffer, limits: IngestBodyLimits): Promise<Buffer> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return body;
  if (encoding !== 'gzip') {
    throw new ApiError('unsupported-media-type', `Content-Encoding "${encoding}" is not supported; send gzip or no encoding.`);
  }
  try {
    return await gunzipAsync(body, { maxOutputLength: limits.maxDecompressedBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ApiError('payload-too-large', `The decompressed body is larger than ${limits.maxDecompressedBytes} bytes.`);
    }
    throw new ApiError('invalid-request', 'The body is not valid gzip data.');
  }
}

/**
 * Replaces the scope's JSON parser with one that also accepts `Content-Encoding: gzip`, with a
 * limit on the wire size and another on the decompressed size (gzip bombs stop at the limit).
 */
export function installIngestBodyParser(scope: FastifyInstance, limits: IngestBodyLimits): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limits.maxBodyBytes }, async (request: FastifyRequest, raw: Buffer) => {
    const json = await decode(request, raw, limits);
    if (json.length > limits.maxDecompressedBytes) {
      throw new ApiError('payload-too-large', `The body is larger than ${limits.maxDecompressedBytes} bytes.`);
    }
    try {
      return JSON.parse(json.toString('utf8')) as unknown;
    } catch (error) {
      throw new ApiError('invalid-request', `Malformed JSON body: ${(error as Error).message}`);
    }
  });
}
