import { Type } from '@sinclair/typebox';

/** OpenAPI documentation of an OTLP body: the proto message, JSON or binary protobuf by Content-Type. */
export function otlpBodyContent(message: string): Record<string, unknown> {
  return {
    content: {
      'application/x-protobuf': { schema: { type: 'string', format: 'binary', description: `${message}, binary protobuf` } },
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: true,
          description: `${message} in OTLP/JSON: lowerCamelCase keys, hex trace and span ids, integer enums, 64-bit integers as strings or numbers`,
        },
      },
    },
  };
}

/** `google.rpc.Status`, the body of every OTLP error, in the request's encoding. */
export const OtlpStatus = Type.Object(
  {
    code: Type.Integer({ description: 'gRPC status code (informative; the HTTP status is what clients act on)' }),
    message: Type.String(),
    details: Type.Array(Type.Object({ '@type': Type.String() }, { additionalProperties: true }), {
      description: 'google.rpc.ErrorInfo (reason: the error code, metadata.requestId), google.rpc.RetryInfo when retryable, google.rpc.BadRequest for bad data',
    }),
  },
  { $id: 'OtlpStatus', description: 'google.rpc.Status; binary protobuf when the request was, JSON otherwise' },
);

/** The export response's documentation. */
export function otlpResponseContent(message: string, rejectedField: string): Record<string, unknown> {
  return {
    description: `${message}; partialSuccess.${rejectedField} and errorMessage when some items were refused (the rest are stored). Sent after the commit.`,
    content: {
      'application/x-protobuf': { schema: { type: 'string', format: 'binary' } },
      'application/json': {
        schema: {
          type: 'object',
          properties: {
            partialSuccess: {
              type: 'object',
              properties: { [rejectedField]: { type: 'string', description: 'int64, as a decimal string' }, errorMessage: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}
