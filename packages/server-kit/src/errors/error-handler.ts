import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorBody } from './api-error.js';
import type { ErrorCode } from './error-codes.js';

/** Fastify's own error codes, mapped onto ours. */
const fastifyCodeMap: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-request',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload-too-large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid-request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-request',
  FST_ERR_CTP_EMPTY_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported-media-type',
  FST_ERR_VALIDATION: 'invalid-request',
};

const defaultMessages: Partial<Record<ErrorCode, string>> = {
  'unsupported-media-type': 'Request bodies must be sent as application/json.',
  'payload-too-large': 'The request body is larger than this endpoint accepts.',
};

/**
 * Client errors raised by libraries (http-errors from @fastify/send, say: a `..` path, a bad
 * Range header) carry only a status; these are the codes they answer with. Any other 4xx is an
 * invalid request.
 */
const codeByClientStatus: Partial<Record<number, ErrorCode>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limited',
  431: 'headers-too-large',
};

function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'request';
  const params = first.params as Record<string, unknown>;
  let field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'required' && typeof params.missingProperty === 'string') {
    field = field ? `${field}.${params.missingProperty}` : params.missingProperty;
    return `${context}.${field} is required`;
  }
  if (first.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    const where = field ? `${context}.${field}` : context;
    return `${where} must not have the member "${params.additionalProperty}"`;
  }
  const where = field ? `${context}.${field}` : context;
  return `${where} ${first.message ?? 'is invalid'}`;
}

/** The ApiError an error stands for (ours, a validation error, Fastify's own), or undefined for an unexpected one. */
export function toApiError(error: FastifyError | ApiError | Error): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return new ApiError('invalid-request', describeValidation(fastifyError));
  const mapped = fastifyError.code ? fastifyCodeMap[fastifyError.code] : undefined;
  if (mapped) return new ApiError(mapped, defaultMessages[mapped] ?? fastifyError.message);
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new ApiError('invalid-request', `Malformed JSON body: ${error.message}`);
  }
  if (fastifyError.statusCode === 429) return new ApiError('rate-limited', 'Too many requests; retry later.');
  if (fastifyError.statusCode === 413) return new ApiError('payload-too-large', defaultMessages['payload-too-large']!);
  if (fastifyError.statusCode === 415) return new ApiError('unsupported-media-type', defaultMessages['unsupported-media-type']!);
  if (fastifyError.statusCode === 400) return new ApiError('invalid-request', fastifyError.message);
  const status = fastifyError.statusCode ?? (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = codeByClientStatus[status] ?? 'invalid-request';
    return new ApiError(code, `The request was refused: ${fastifyError.message}.`);
  }
  return undefined;
}

/** Serializes an ApiError into the one envelope, with its headers. */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const body: ErrorBody = { error: { code: error.code, message: error.message, requestId: String(request.id) } };
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(body);
}

/** Installs the one error handler and the not-found handler on an instance (and its children). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) {
      // A client's mistake is no operator's problem: at most info, so no one can flood the error log.
      if (apiError.statusCode >= 500) request.log.warn({ err: error }, apiError.message);
      else if (!(error instanceof ApiError)) request.log.info({ code: apiError.code, reason: error.message }, 'refused request');
      return sendApiError(request, reply, apiError);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendApiError(request, reply, new ApiError('internal-error', 'An unexpected error occurred; it has been logged.'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendApiError(request, reply, new ApiError('not-found', `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );
}

/**
 * Fastify's `frameworkErrors`: a URL that does not decode, or a path parameter over its length,
 * found before any route (and its hooks) runs. Answered with the envelope and the usual headers.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  const apiError =
    error.code === 'FST_ERR_BAD_URL'
      ? new ApiError('invalid-request', 'The URL is not valid: a percent sign must start an escape such as %2F.')
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('invalid-request', 'A path segment of the URL is longer than any identifier this service knows.')
        : undefined;
  if (apiError) {
    request.log.info({ code: apiError.code, reason: error.message }, 'refused request');
    sendApiError(request, reply, apiError);
    return;
  }
  request.log.error({ err: error }, 'unexpected error');
  sendApiError(request, reply, new ApiError('internal-error', 'An unexpected error occurred; it has been logged.'));
}

/** HTTP a request could not even be parsed as: the codes its answer carries. */
const clientErrorCodes: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request-timeout',
  HPE_HEADER_OVERFLOW: 'headers-too-large',
};
const clientErrorMessages: Partial<Record<ErrorCode, string>> = {
  'request-timeout': 'The request was not received in time.',
  'headers-too-large': 'The request headers are larger than this service accepts.',
  'invalid-request': 'The request is not valid HTTP.',
};

/**
 * Fastify's `clientErrorHandler`: bytes that are not an HTTP request (or headers too large, or
 * too slow) get the envelope, written straight to the socket, which is then closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const code = clientErrorCodes[error.code ?? ''] ?? 'invalid-request';
    const apiError = new ApiError(code, clientErrorMessages[code]!);
    const requestId = randomUUID();
    const body: ErrorBody = { error: { code, message: apiError.message, requestId } };
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode]}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(json)}\r\n` +
        `x-request-id: ${requestId}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(error);
}
