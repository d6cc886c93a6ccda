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

/**
 * The body as sent, decompressed when `Content-Encoding: gzip`, with a limit on the wire size (the
 * route's body limit) and another on the decompressed size (gzip bombs stop at the limit).
 */
export async function decodeIngestBody(request: FastifyRequest, body: Buffer, limits: IngestBodyLimits): Promise<Buffer> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoded = body;
  if (encoding === 'gzip') {
    try {
      decoded = await gunzipAsync(body, { maxOutputLength: limits.maxDecompressedBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limits);
      throw new ApiError('invalid-request', 'The body is not valid gzip data.');
    }
  } else if (encoding !== 'identity') {
    throw new ApiError('unsupported-media-type', `Content-Encoding "${encoding}" is not supported; send gzip or no encoding.`);
  }
  if (decoded.length > limits.maxDecompressedBytes) throw tooLarge(limits);
  return decoded;
}

function tooLarge(limits: IngestBodyLimits): ApiError {
  return new ApiError('payload-too-large', `The body is larger than ${limits.maxDecompressedBytes} bytes (after decompression).`);
}

/** Replaces the scope's JSON parser with one that also accepts `Content-Encoding: gzip` (see decodeIngestBody). */
export function installIngestBodyParser(scope: FastifyInstance, limits: IngestBodyLimits): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limits.maxBodyBytes }, async (request: FastifyRequest, raw: Buffer) => {
    const json = await decodeIngestBody(request, raw, limits);
    try {
      return JSON.parse(json.toString('utf8')) as unknown;
    } catch (error) {
      throw new ApiError('invalid-request', `Malformed JSON body: ${(error as Error).message}`);
    }
  });
}
