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
      if (apiError.statusCode >= 500) request.log.warn({ err: error }, apiError.message);
      return sendApiError(request, reply, apiError);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendApiError(request, reply, new ApiError('internal-error', 'An unexpected error occurred; it has been logged.'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendApiError(request, reply, new ApiError('not-found', `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
